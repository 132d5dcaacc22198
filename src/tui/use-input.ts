/**
 * ink's `useInput` with the handler read when a key arrives, not when an effect last ran. ink
 * re-subscribes the handler in a passive effect, which React runs after the frame is drawn, so a
 * key arriving before it (fast typing, keys queued while the process is busy) met the previous
 * render's values and was lost. Every component of the terminal takes keys through this hook.
 */
import { type Key, useInput as useInkInput } from 'ink';
import { useCallback, useRef } from 'react';

export type InputHandler = (input: string, key: Key) => void;

export function useInput(handler: InputHandler, options: { isActive?: boolean } = {}): void {
  const latest = useRef(handler);
  latest.current = handler;
  const stable = useCallback<InputHandler>((input, key) => latest.current(input, key), []);
  useInkInput(stable, options);
}
