/**
 * The model's view of a whole logged session: the messages derived from the log with every
 * `context/compact` applied. What an agent reopened on that log would send; for readers of a
 * session (tests, `/context`) that hold events rather than a live agent. Reads events only.
 */
import { deriveMessages } from '../core/messages.js';
import type { SessionEvent } from '../core/session-events.js';
import type { ModelMessage } from '../llm/contract.js';
import { applyPruned } from './pruning.js';

/** The call ids every logged compaction pruned, in log order. */
export function prunedCallIds(events: readonly SessionEvent[]): Set<string> {
  const pruned = new Set<string>();
  for (const event of events) {
    if (event.type !== 'context/compact') continue;
    for (const callId of (event as SessionEvent<'context/compact'>).data.pruned) pruned.add(callId);
  }
  return pruned;
}

export function compactedView(events: readonly SessionEvent[]): ModelMessage[] {
  return applyPruned(deriveMessages(events), prunedCallIds(events), new Map());
}
