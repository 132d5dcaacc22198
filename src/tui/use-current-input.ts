/**
 * ink's `useInput` with a handler that is always the latest render's, called once per key. ink
 * re-subscribes a new handler in a passive effect, after the frame is already on the screen, so
 * a key typed right after a redraw would reach the previous render's handler and its stale
 * state (an Enter that submits the text before the last keys). Here the subscription never
 * changes; it calls the handler the latest render made. A chunk read at once is split into its
 * keys (input-keys.ts), except inside a bracketed paste, whose chunks (and markers) pass whole.
 * Never use it for handlers with side effects at render time.
 */
import { useInput } from 'ink';
import { useCallback, useRef } from 'react';
import { PASTE_END, PASTE_START, splitKeys } from './input-keys.js';

type InputHandler = Parameters<typeof useInput>[0];

export function useCurrentInput(handler: InputHandler, options: { isActive?: boolean } = {}): void {
  const latest = useRef(handler);
  latest.current = handler;
  const pasting = useRef(false);
  const stable = useCallback<InputHandler>((input, key) => {
    if (input === PASTE_START) pasting.current = true;
    if (input === PASTE_END) pasting.current = false;
    if (pasting.current || input === PASTE_END) {
      latest.current(input, key);
      return;
    }
    for (const press of splitKeys(input, key)) latest.current(press.input, press.key);
  }, []);
  useInput(stable, options);
}
