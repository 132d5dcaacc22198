/**
 * Positive signals about Node's own event loop, for tests that must show something did NOT
 * happen. Each resolves at a point Node guarantees, never after a guessed number of turns.
 */

/**
 * Resolves once Node has reported every promise rejection made so far: Node raises
 * `unhandledRejection` when the tick queue drains, which is before the next check phase, where an
 * immediate runs.
 */
export function afterRejectionsReported(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves after every immediate queued before this call has run (Node runs them in order). */
export function afterQueuedImmediates(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
