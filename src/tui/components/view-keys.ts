/**
 * What the navigable views share: the Esc slot a view claims while it shows a nested pane (so
 * Esc goes back one level instead of closing the view), a clock that ticks (on the shared ticker) while something runs,
 * the window of rows that keeps the selection visible, and short times. No drawing here.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTick } from '../use-tick.js';

/** Set by the open view; the app calls it on Esc and closes the view when it returns false. */
export interface EscapeSlot {
  current: (() => boolean) | undefined;
}

/** Claims Esc for as long as the component is mounted; `handler` returns whether it used the key. */
export function useEscape(slot: EscapeSlot | undefined, handler: () => boolean): void {
  useEffect(() => {
    if (!slot) return;
    slot.current = handler;
    return () => {
      if (slot.current === handler) slot.current = undefined;
    };
  }, [slot, handler]);
}

/**
 * State whose latest value key handlers read from `ref`: ink re-attaches a handler only after the
 * frame is drawn, so a key typed right after a redraw would otherwise see the value before it.
 */
export function useKeyState<Value>(
  initial: Value,
): [Value, { readonly current: Value }, (next: Value) => void] {
  const [value, setValue] = useState(initial);
  const ref = useRef(initial);
  const set = useCallback((next: Value) => {
    ref.current = next;
    setValue(next);
  }, []);
  return [value, ref, set];
}

/** The time now, refreshed about every `intervalMs` while `active` (running agents' times go on). */
export function useNow(active: boolean, intervalMs = 1000): number {
  useTick(active, intervalMs);
  return Date.now();
}

/** The next row after an arrow key, wrapping around; from no selection, the first or the last. */
export function stepIndex(index: number, count: number, down: boolean): number {
  if (index < 0) return down ? 0 : count - 1;
  return (index + (down ? 1 : count - 1)) % count;
}

/** The rows `[start, end)` of `total` to draw in `height` rows so that `selected` is among them. */
export function rowWindow(
  total: number,
  selected: number | undefined,
  height: number,
): { start: number; end: number } {
  if (total <= height) return { start: 0, end: total };
  const target = selected ?? 0;
  const start = Math.min(Math.max(0, target - Math.floor(height / 2)), total - height);
  return { start, end: start + height };
}

/** `850ms`, `4.2s`, `37s`, `3m05s`, `2h04m`. */
export function formatDuration(elapsed: number): string {
  const milliseconds = Math.max(0, elapsed);
  if (milliseconds < 1000) return `${Math.round(milliseconds)}ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.floor(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
