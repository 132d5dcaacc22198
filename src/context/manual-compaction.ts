/**
 * Manual compaction (`loom compact`, `/compact [instructions]`): compacts a session's log now.
 * Without instructions it prunes (every tool result not yet pruned except those of the last
 * `keepSteps` steps, by the rules and stub of pruning.ts), and summarizes only when nothing can
 * be pruned and a model is given; with instructions it summarizes all but the last `keepSteps`
 * steps, the summary focused as asked. It appends one `context/compact` (`trigger: 'manual'`)
 * or `context/compact-skipped`; it never edits or drops a logged event, and the caller must hold
 * the log while no turn runs.
 */
import type { AgentHandle } from '../core/create-agent.js';
import type { SessionLog } from '../core/session-log.js';
import { standingState } from '../core/standing-state.js';
import type { ModelClient, ModelMessage } from '../llm/contract.js';
import {
  applyCompactions,
  derivedWithOrigins,
  foldCompactions,
  foldedWith,
} from './compacted-view.js';
import { contextCompactLine, contextSkippedLine } from './context-lines.js';
import { contextWindowOf } from './context-window.js';
import type { ContextCompactEvent, ContextCompactSkippedEvent } from './contract.js';
import { choosePrunes } from './pruning.js';
import { lastReportedSize } from './reported-size.js';
import { chooseCut, prunesAfterCut, summarize } from './summarize.js';
import { stateText } from './summary-prompt.js';
import { charactersOfRequest, tokensOfCharacters } from './token-estimate.js';

export type ManualCompaction =
  | { compacted: true; event: ContextCompactEvent }
  | { compacted: false; skipped: ContextCompactSkippedEvent };

export interface ManualCompactionOptions {
  keepSteps: number;
  /** What the summary should focus on; asks for a summary. */
  instructions?: string;
  /** The model that writes a summary, and its window; without it only pruning runs. */
  summarizer?: { model: ModelClient; window: number; signal?: AbortSignal };
  /** The agent's standing state (goal, todos, plan, schedules), restated after the compaction. */
  state?: string;
}

/** Compacts `log` now and logs what it did (or why nothing was done). */
export async function compactLog(
  log: SessionLog,
  options: ManualCompactionOptions,
): Promise<ManualCompaction> {
  const events = log.events;
  const fold = foldCompactions(events);
  const { messages, origins } = derivedWithOrigins(events);
  const view = applyCompactions(messages, origins, fold);
  const whole = estimateOf(view.messages);
  const base = lastReportedSize(events, estimateOf);
  const before = base ? Math.max(0, base.reported + whole - base.estimate) : whole;
  const sizeOf = (candidate: readonly ModelMessage[]) => before - (whole - estimateOf(candidate));
  const skip = (skipped: ContextCompactSkippedEvent): ManualCompaction => {
    log.append('context/compact-skipped', skipped);
    return { compacted: false, skipped };
  };
  const logged = (event: ContextCompactEvent): ManualCompaction => {
    log.append('context/compact', event);
    return { compacted: true, event };
  };
  const wanted = options.instructions !== undefined && options.instructions.trim() !== '';
  const choice = choosePrunes(
    view.messages,
    fold.pruned,
    options.keepSteps,
    Number.POSITIVE_INFINITY,
  );
  const pruning: ContextCompactEvent = {
    through: log.lastSeq,
    summary: '',
    pruned: choice.callIds,
    before,
    after: before,
    trigger: 'manual',
  };
  if (options.state) pruning.state = stateText(options.state);
  pruning.after = sizeOf(applyCompactions(messages, origins, foldedWith(fold, pruning)).messages);
  const pruningHelps = choice.callIds.length > 0 && pruning.after < before;
  if (!wanted && (pruningHelps || !options.summarizer)) {
    return pruningHelps ? logged(pruning) : skip({ before, wouldBe: pruning.after });
  }
  if (!options.summarizer) {
    return skip({ before, wouldBe: before, reason: 'no model to write a summary' });
  }
  const cut = chooseCut(view, fold, options.keepSteps, events);
  if (!cut) {
    return skip({
      before,
      wouldBe: before,
      reason: `nothing is older than the last ${options.keepSteps} steps, so there is nothing to summarize`,
    });
  }
  log.append('context/summarizing', { through: cut.through, before, trigger: 'manual' });
  const outcome = await summarize({
    events,
    view,
    fold,
    cut,
    model: options.summarizer.model,
    window: options.summarizer.window,
    ...(options.summarizer.signal ? { signal: options.summarizer.signal } : {}),
    ...(wanted ? { instructions: options.instructions } : {}),
    ...(options.state !== undefined ? { state: options.state } : {}),
  });
  if (!outcome.ok) return skip({ before, wouldBe: before, reason: outcome.reason });
  const event: ContextCompactEvent = {
    through: cut.through,
    summary: outcome.summary,
    pruned: prunesAfterCut(view, cut, choice.callIds),
    before,
    after: before,
    trigger: 'manual',
    summarized: outcome.summarized,
  };
  event.after = sizeOf(applyCompactions(messages, origins, foldedWith(fold, event)).messages);
  if (event.after >= before) {
    return skip({
      before,
      wouldBe: event.after,
      reason: 'the summary would not be smaller than what it replaces',
    });
  }
  return logged(event);
}

/** The messages' estimate; system prompt and tool schemas are the same on both sides of a difference. */
const estimateOf = (messages: readonly ModelMessage[]) =>
  tokensOfCharacters(charactersOfRequest('', [], messages));

/** The line a person reads about a manual compaction (`contextCompactLine` or the skipped line). */
export function manualCompactionLine(result: ManualCompaction): string {
  return result.compacted ? contextCompactLine(result.event) : contextSkippedLine(result.skipped);
}

/**
 * `/compact [instructions]` on a live, idle agent: its model writes any summary, and its layers'
 * standing state is restated after the compaction.
 */
export async function compactAgent(
  handle: AgentHandle,
  options: { keepSteps: number; instructions?: string },
): Promise<ManualCompaction> {
  const model = handle.agent.model;
  const blocks = await handle.context.serial(
    standingState,
    { agentId: handle.log.header.sessionId },
    [],
  );
  const state = blocks.filter((block) => block.trim() !== '').join('\n\n');
  return compactLog(handle.log, {
    keepSteps: options.keepSteps,
    summarizer: { model, window: contextWindowOf(handle.context, model) },
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    ...(state !== '' ? { state } : {}),
  });
}
