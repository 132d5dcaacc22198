/**
 * State for key handlers. Keys that arrive in one chunk (a fast typist, a paste) are handled one
 * after another before React draws again, so a handler must read what the previous key left, not
 * the value of the last render. The value lives in a ref; setting it schedules a redraw. Never
 * use it for state that no key handler reads.
 */
import { useMemo, useReducer, useRef } from 'react';

export interface KeyState<Value> {
  readonly current: Value;
  set(next: Value): void;
}

export function useKeyState<Value>(initial: Value): KeyState<Value> {
  const value = useRef(initial);
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  return useMemo(
    () => ({
      get current() {
        return value.current;
      },
      set(next: Value) {
        value.current = next;
        redraw();
      },
    }),
    [],
  );
}
