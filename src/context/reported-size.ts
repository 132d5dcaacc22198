/**
 * Where a logged session's size starts from: its last reported prompt size and the estimate of
 * the messages that request sent (the view up to that assistant message, with only the
 * compactions logged before it applied), so a compaction logged after it counts as saved room.
 * For a reopened agent's tracker and a manual compaction. Pure; reads events only.
 */
import type { SessionEvent } from '../core/session-events.js';
import type { ModelMessage } from '../llm/contract.js';
import { applyPruned } from './pruning.js';

export interface ReportedSize {
  /** The provider's prompt tokens of the last request it reported. */
  reported: number;
  /** The estimate of that request's messages (and whatever `estimateOf` adds to them). */
  estimate: number;
}

/** `derived`: the messages core derives from `events`, no compaction applied. */
export function lastReportedSize(
  events: readonly SessionEvent[],
  derived: readonly ModelMessage[],
  estimateOf: (messages: readonly ModelMessage[]) => number,
): ReportedSize | undefined {
  const pruned: string[] = [];
  let ordinal = 0;
  let report: { reported: number; ordinal: number; prunedThen: number } | undefined;
  for (const event of events) {
    if (event.type === 'context/compact') {
      pruned.push(...(event as SessionEvent<'context/compact'>).data.pruned);
    } else if (event.type === 'assistant/message') {
      ordinal += 1;
      const { usage } = (event as SessionEvent<'assistant/message'>).data;
      if (usage.input > 0) report = { reported: usage.input, ordinal, prunedThen: pruned.length };
    }
  }
  if (!report) return undefined;
  const { reported, ordinal: reportedOrdinal, prunedThen } = report;
  let seen = 0;
  const index = derived.findIndex(
    (message) => message.role === 'assistant' && ++seen === reportedOrdinal,
  );
  if (index < 0) return undefined;
  const sent = applyPruned(
    derived.slice(0, index),
    new Set(pruned.slice(0, prunedThen)),
    new Map(),
  );
  return { reported, estimate: estimateOf(sent) };
}
