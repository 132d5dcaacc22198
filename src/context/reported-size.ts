/**
 * Where a logged session's size starts from: its last reported prompt size and the estimate of
 * the messages that request sent (the view of the events before that assistant message, with
 * only the compactions logged before it applied), so a compaction logged after it counts as
 * saved room. For a reopened agent's tracker and a manual compaction. Pure; reads events only.
 */
import type { SessionEvent } from '../core/session-events.js';
import type { ModelMessage } from '../llm/contract.js';
import { applyCompactions, derivedWithOrigins, foldCompactions } from './compacted-view.js';

export interface ReportedSize {
  /** The provider's prompt tokens of the last request it reported. */
  reported: number;
  /** The estimate of that request's messages (and whatever `estimateOf` adds to them). */
  estimate: number;
}

export function lastReportedSize(
  events: readonly SessionEvent[],
  estimateOf: (messages: readonly ModelMessage[]) => number,
): ReportedSize | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type !== 'assistant/message') continue;
    const { usage } = (event as SessionEvent<'assistant/message'>).data;
    if (usage.input <= 0) continue;
    const before = events.slice(0, index);
    const { messages, origins } = derivedWithOrigins(before);
    const sent = applyCompactions(messages, origins, foldCompactions(before));
    return { reported: usage.input, estimate: estimateOf(sent.messages) };
  }
  return undefined;
}
