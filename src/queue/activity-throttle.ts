/**
 * Thins a child's activity before it crosses the queue: `request` and `answered` always pass,
 * `output` (one per streamed delta) at most once per interval, so a fast stream costs Redis a
 * few writes a second. Pure: the clock is passed in.
 */
import type { SubagentActivity } from '../subagent/contract.js';

export const OUTPUT_ACTIVITY_INTERVAL_MS = 250;

/** Returns whether `activity` at `now` (ms) should be forwarded. */
export type ActivityThrottle = (activity: SubagentActivity, now: number) => boolean;

export function throttleActivity(intervalMs = OUTPUT_ACTIVITY_INTERVAL_MS): ActivityThrottle {
  let lastOutput = Number.NEGATIVE_INFINITY;
  return (activity, now) => {
    if (activity !== 'output') return true;
    if (now - lastOutput < intervalMs) return false;
    lastOutput = now;
    return true;
  };
}
