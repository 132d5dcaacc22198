/**
 * The two compactions as the events they log, built the same way for automatic (the tracker)
 * and manual (`/compact`, `loom compact`) compaction: a pruning, and a summary (which logs
 * `context/summarizing` before its model request). `sizeOf` tells the request's size with a
 * candidate fold applied; a caller decides whether to log what it gets.
 */
import type { SessionEventMap } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import { type CompactedMessages, type CompactionFold, foldedWith } from './compacted-view.js';
import type { CompactTrigger, ContextCompactEvent } from './contract.js';
import { choosePrunes } from './pruning.js';
import { chooseCut, prunesAfterCut, type SummarizeInput, summarize } from './summarize.js';
import { stateText } from './summary-prompt.js';

interface CompactionBase {
  view: CompactedMessages;
  fold: CompactionFold;
  keepSteps: number;
  before: number;
  trigger: CompactTrigger;
  sizeOf: (fold: CompactionFold) => number;
}

/** The pruning that saves `excess` tokens (or all it can), with the state restated after it. */
export function pruningEvent(
  base: CompactionBase & { through: number; excess: number; state?: string },
): ContextCompactEvent {
  const { fold, before } = base;
  const choice = choosePrunes(base.view.messages, fold.pruned, base.keepSteps, base.excess);
  const event: ContextCompactEvent = {
    through: base.through,
    summary: '',
    pruned: choice.callIds,
    before,
    after: before,
    trigger: base.trigger,
  };
  if (base.state) event.state = stateText(base.state);
  event.after = base.sizeOf(foldedWith(fold, event));
  return event;
}

export type SummaryEventOutcome =
  | { kind: 'summary'; event: ContextCompactEvent }
  | { kind: 'none' }
  | { kind: 'failed'; reason: string; wouldBe: number };

/**
 * A summary of all but the last `keepSteps` steps: `none` when nothing is older, `failed` when
 * the request failed or the summary would not be smaller. `pruned` are the results a pruning
 * before it chose (only those left in the view after the cut are kept in the event).
 */
export async function summaryEvent(
  base: CompactionBase & {
    log: SessionLog;
    pruned: readonly string[];
    request: Pick<SummarizeInput, 'model' | 'window' | 'instructions' | 'state' | 'signal'>;
    /** The turn the compaction runs in; absent for a manual one. */
    turnId?: string;
  },
): Promise<SummaryEventOutcome> {
  const { log, view, fold, before, trigger } = base;
  const cut = chooseCut(view, fold, base.keepSteps, log.events);
  if (!cut) return { kind: 'none' };
  log.append('context/summarizing', { through: cut.through, before, trigger });
  const outcome = await summarize({ ...base.request, events: log.events, view, fold, cut });
  const spent: SessionEventMap['model/side-request'] = {
    purpose: 'summary',
    model: base.request.model.id,
    usage: outcome.usage,
  };
  if (base.turnId !== undefined) spent.turnId = base.turnId;
  log.append('model/side-request', spent);
  if (!outcome.ok) return { kind: 'failed', reason: outcome.reason, wouldBe: before };
  const event: ContextCompactEvent = {
    through: cut.through,
    summary: outcome.summary,
    pruned: prunesAfterCut(view, cut, base.pruned),
    before,
    after: before,
    trigger,
    summarized: outcome.summarized,
  };
  event.after = base.sizeOf(foldedWith(fold, event));
  if (event.after >= before) {
    return {
      kind: 'failed',
      reason: 'the summary would not be smaller than what it replaces',
      wouldBe: event.after,
    };
  }
  return { kind: 'summary', event };
}
