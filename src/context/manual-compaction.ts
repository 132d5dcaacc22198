/**
 * Manual compaction (`loom compact`, `/compact [instructions]`): compacts a session's log now.
 * Without instructions it prunes (every tool result not yet pruned except those of the last
 * `keepSteps` steps, by the rules and stub of pruning.ts), and summarizes only when nothing can
 * be pruned and a model is given; with instructions it summarizes all but the last `keepSteps`
 * steps, the summary focused as asked. It appends one `context/compact` (`trigger: 'manual'`)
 * or `context/compact-skipped`; it never edits or drops a logged event, and the caller must hold
 * the log while no turn runs.
 */
import { agentCompacting } from '../core/agent-hooks.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { SessionLog } from '../core/session-log.js';
import { standingStateText } from '../core/standing-state.js';
import type { ModelClient, ModelMessage } from '../llm/contract.js';
import {
  applyCompactions,
  type CompactionFold,
  derivedWithOrigins,
  foldCompactions,
} from './compacted-view.js';
import { pruningEvent, summaryEvent } from './compaction-events.js';
import { contextCompactLine, contextSkippedLine } from './context-lines.js';
import { contextWindowOf } from './context-window.js';
import type { ContextCompactEvent, ContextCompactSkippedEvent } from './contract.js';
import { lastReportedSize } from './reported-size.js';
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
  const reported = lastReportedSize(events, estimateOf);
  const before = reported ? Math.max(0, reported.reported + whole - reported.estimate) : whole;
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
  const base = {
    view,
    fold,
    keepSteps: options.keepSteps,
    before,
    trigger: 'manual' as const,
    sizeOf: (candidate: CompactionFold) =>
      sizeOf(applyCompactions(messages, origins, candidate).messages),
  };
  const pruning = pruningEvent({
    ...base,
    through: log.lastSeq,
    excess: Number.POSITIVE_INFINITY,
    ...(options.state !== undefined ? { state: options.state } : {}),
  });
  const pruningHelps = pruning.pruned.length > 0 && pruning.after < before;
  if (!wanted && (pruningHelps || !options.summarizer)) {
    return pruningHelps ? logged(pruning) : skip({ before, wouldBe: pruning.after });
  }
  if (!options.summarizer) {
    return skip({ before, wouldBe: before, reason: 'no model to write a summary' });
  }
  const { model, window, signal } = options.summarizer;
  const summary = await summaryEvent({
    ...base,
    log,
    pruned: pruning.pruned,
    request: {
      model,
      window,
      ...(signal ? { signal } : {}),
      ...(wanted ? { instructions: options.instructions } : {}),
      ...(options.state !== undefined ? { state: options.state } : {}),
    },
  });
  if (summary.kind === 'summary') return logged(summary.event);
  if (summary.kind === 'failed') {
    return skip({ before, wouldBe: summary.wouldBe, reason: summary.reason });
  }
  return skip({
    before,
    wouldBe: before,
    reason: `nothing is older than the last ${options.keepSteps} steps, so there is nothing to summarize`,
  });
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
  await handle.context.serial(
    agentCompacting,
    {
      agentId: handle.log.header.sessionId,
      trigger: 'manual',
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    },
    undefined,
  );
  const state = await standingStateText(handle.context, handle.log.header.sessionId);
  return compactLog(handle.log, {
    keepSteps: options.keepSteps,
    summarizer: { model, window: contextWindowOf(handle.context, model) },
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    ...(state !== undefined ? { state } : {}),
  });
}
