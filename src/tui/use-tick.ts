/**
 * The React side of the shared ticker: a component that calls `useTick` redraws on the ticker
 * while it is active and holds no timer of its own.
 */
import { useEffect, useState } from 'react';
import { sharedTicker, TICK_MS } from './ticker.js';

/**
 * The shared ticker's count, redrawing the component about every `everyMs` while `active`
 * (default: every tick). Inactive, it never redraws and holds no timer.
 */
export function useTick(active: boolean, everyMs = TICK_MS): number {
  const [tick, setTick] = useState(sharedTicker.count);
  useEffect(() => {
    if (!active) return;
    const step = Math.max(1, Math.round(everyMs / sharedTicker.intervalMs));
    return sharedTicker.subscribe((count) => {
      if (count % step === 0) setTick(count);
    });
  }, [active, everyMs]);
  return tick;
}
