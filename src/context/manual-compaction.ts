/**
 * Manual compaction (`loom compact`, `/compact`): prunes a session's log now, by pruning alone
 * (summarization is not built): every tool result not yet pruned except those of the last
 * `keepSteps` steps, by the rules and stub of pruning.ts. It appends one `context/compact`
 * (`trigger: 'manual'`) or `context/compact-skipped`; it never edits or drops a logged event, and
 * the caller must hold the log while no turn runs.
 */
import { deriveMessages } from '../core/messages.js';
import type { SessionEvent } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import type { ModelMessage } from '../llm/contract.js';
import { prunedCallIds } from './compacted-view.js';
import { contextCompactLine, contextSkippedLine } from './context-lines.js';
import type { ContextCompactEvent, ContextCompactSkippedEvent } from './contract.js';
import { applyPruned, choosePrunes } from './pruning.js';
import { lastReportedSize } from './reported-size.js';
import { charactersOfRequest, tokensOfCharacters } from './token-estimate.js';

export type ManualCompaction =
  | { compacted: true; event: ContextCompactEvent }
  | { compacted: false; skipped: ContextCompactSkippedEvent };

/** Prunes `log` now and logs what it did (or that nothing could be pruned). */
export function compactLog(log: SessionLog, options: { keepSteps: number }): ManualCompaction {
  const events = log.events;
  const pruned = prunedCallIds(events);
  const derived = deriveMessages(events);
  const view = applyPruned(derived, pruned, new Map());
  const before = loggedRequestSize(events, derived, view);
  const choice = choosePrunes(view, pruned, options.keepSteps, Number.POSITIVE_INFINITY);
  const after =
    before - (estimateOf(view) - estimateOf(applyPruned(view, new Set(choice.callIds), new Map())));
  if (choice.callIds.length === 0 || after >= before) {
    const skipped = { before, wouldBe: after };
    log.append('context/compact-skipped', skipped);
    return { compacted: false, skipped };
  }
  const event: ContextCompactEvent = {
    through: log.lastSeq,
    summary: '',
    pruned: choice.callIds,
    before,
    after,
    trigger: 'manual',
  };
  log.append('context/compact', event);
  return { compacted: true, event };
}

/** The messages' estimate; system prompt and tool schemas are the same on both sides of a difference. */
const estimateOf = (messages: readonly ModelMessage[]) =>
  tokensOfCharacters(charactersOfRequest('', [], messages));

/**
 * The size of the next request, as the tracker sizes a reopened session: the last reported
 * prompt size plus the estimated change since the request it was reported for; with no report,
 * the estimate of the messages alone.
 */
function loggedRequestSize(
  events: readonly SessionEvent[],
  derived: readonly ModelMessage[],
  view: readonly ModelMessage[],
): number {
  const whole = estimateOf(view);
  const base = lastReportedSize(events, derived, estimateOf);
  return base ? Math.max(0, base.reported + whole - base.estimate) : whole;
}

/** The line a person reads about a manual compaction (`contextCompactLine` or the skipped line). */
export function manualCompactionLine(result: ManualCompaction): string {
  return result.compacted ? contextCompactLine(result.event) : contextSkippedLine(result.skipped);
}
