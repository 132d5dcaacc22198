/**
 * ink's `useInput` with a handler that is always the latest render's. ink re-subscribes a new
 * handler in a passive effect, after the frame is already on the screen, so a key typed right
 * after a redraw would reach the previous render's handler and its stale state (an Enter that
 * submits the text before the last keys). Here the subscription never changes; it calls the
 * handler the latest render made. Never use it for handlers with side effects at render time.
 */
import { useInput } from 'ink';
import { useCallback, useRef } from 'react';

type InputHandler = Parameters<typeof useInput>[0];

export function useCurrentInput(handler: InputHandler, options: { isActive?: boolean } = {}): void {
  const latest = useRef(handler);
  latest.current = handler;
  const stable = useCallback<InputHandler>((input, key) => latest.current(input, key), []);
  useInput(stable, options);
}
