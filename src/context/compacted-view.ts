/**
 * The model's view of a logged session: the messages core derives from the log with every
 * logged `context/compact` applied. The latest summary stands for every message up to its
 * `through`; a pruning compaction's restatement of the agent's standing state follows the
 * messages up to its `through`; each pruned tool result is its one-line stub. The tracker folds
 * compactions as they are logged; readers that hold events (`/context`, tests, a reopened size)
 * fold them all at once. Pure: reads events only, never changes one.
 */
import { MessageProjection } from '../core/messages.js';
import type { SessionEvent } from '../core/session-events.js';
import type { CompactionNote, ModelMessage } from '../llm/contract.js';
import type { ContextCompactEvent } from './contract.js';
import { applyPruned } from './pruning.js';

export interface CompactionFold {
  /** Every call id a compaction pruned. */
  pruned: Set<string>;
  /**
   * The latest summary, standing for the messages of the events up to `through`; `spans` are the
   * ids of every span summarized so far (each summary folds in the one before it).
   */
  summary?: {
    through: number;
    text: string;
    spans: string[];
    openTurn?: { prompt: string; steps: number };
  };
  /** Restatements logged by pruning compactions, each sent after the messages up to its `through`. */
  states: Array<{ through: number; text: string }>;
}

export function emptyCompactionFold(): CompactionFold {
  return { pruned: new Set(), states: [] };
}

/** Folds one logged compaction into `fold`. */
export function foldCompaction(fold: CompactionFold, event: ContextCompactEvent): void {
  for (const callId of event.pruned) fold.pruned.add(callId);
  if (event.summary !== '') {
    const spans = [...(fold.summary?.spans ?? [])];
    if (event.summarized) spans.push(event.summarized.id);
    fold.summary = { through: event.through, text: event.summary, spans };
    if (event.summarized?.openTurn) fold.summary.openTurn = event.summarized.openTurn;
    fold.states = fold.states.filter((state) => state.through > event.through);
  } else if (event.state) {
    fold.states.push({ through: event.through, text: event.state });
  }
}

/** `fold` with `event` folded in; `fold` itself is left unchanged. */
export function foldedWith(fold: CompactionFold, event: ContextCompactEvent): CompactionFold {
  const copy = structuredClone(fold);
  foldCompaction(copy, event);
  return copy;
}

/** Every compaction of `events` (or of those before index `end`), folded. */
export function foldCompactions(
  events: readonly SessionEvent[],
  end = events.length,
): CompactionFold {
  const fold = emptyCompactionFold();
  for (let index = 0; index < end; index++) {
    const event = events[index];
    if (event?.type === 'context/compact') {
      foldCompaction(fold, (event as SessionEvent<'context/compact'>).data);
    }
  }
  return fold;
}

/** The view's messages and, for each, the `seq` it stands at (a summary: its `through`). */
export interface CompactedMessages {
  messages: ModelMessage[];
  origins: number[];
}

/**
 * `derived` (with `origins`, MessageProjection's) with `fold` applied. `stubs` keeps each stub
 * message, so the same stub is the same object on every request.
 */
export function applyCompactions(
  derived: readonly ModelMessage[],
  origins: readonly number[],
  fold: CompactionFold,
  stubs: Map<string, ModelMessage> = new Map(),
): CompactedMessages {
  const { summary } = fold;
  const stubbed = applyPruned(derived, fold.pruned, stubs);
  const messages: ModelMessage[] = [];
  const seqs: number[] = [];
  if (summary) {
    const compaction: CompactionNote = { kind: 'summary' };
    if (summary.openTurn) compaction.openTurn = summary.openTurn;
    messages.push({ role: 'user', content: summary.text, compaction });
    seqs.push(summary.through);
  }
  let nextState = 0;
  const statesBefore = (seq: number) => {
    for (; nextState < fold.states.length; nextState++) {
      const state = fold.states[nextState];
      if (!state || state.through >= seq) return;
      messages.push({ role: 'user', content: state.text, compaction: { kind: 'state' } });
      seqs.push(state.through);
    }
  };
  stubbed.forEach((message, index) => {
    const origin = origins[index] ?? Number.POSITIVE_INFINITY;
    if (summary && origin <= summary.through) return;
    statesBefore(origin);
    messages.push(message);
    seqs.push(origin);
  });
  statesBefore(Number.POSITIVE_INFINITY);
  return { messages, origins: seqs };
}

/** Core's messages of `events` with their origins. */
export function derivedWithOrigins(events: readonly SessionEvent[]): CompactedMessages {
  const projection = new MessageProjection();
  const messages = projection.update(events);
  return { messages, origins: projection.origins() };
}

/** What an agent reopened on `events` would send. */
export function compactedView(events: readonly SessionEvent[]): ModelMessage[] {
  const { messages, origins } = derivedWithOrigins(events);
  return applyCompactions(messages, origins, foldCompactions(events)).messages;
}

/** The call ids every logged compaction pruned, in log order. */
export function prunedCallIds(events: readonly SessionEvent[]): Set<string> {
  return foldCompactions(events).pruned;
}
