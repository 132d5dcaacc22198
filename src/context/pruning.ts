/**
 * Pruning, the compaction that needs no model call: which old tool results of the model's view
 * to replace by a one-line stub citing the call's id, and the view with a set of pruned ids
 * applied. Pure functions over messages; the log itself is never touched here.
 */
import type { ModelMessage } from '../llm/contract.js';
import { charactersOfMessage, tokensOfCharacters } from './token-estimate.js';

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;

/** The one line that stands for a pruned result in the model's view (SPEC §9). */
export function prunedStub(toolName: string, callId: string): string {
  return `[result of ${toolName} pruned; recall ${JSON.stringify(callId)} for the full text]`;
}

/**
 * `messages` with each tool result whose id is in `pruned` replaced by its stub. `stubs` keeps
 * each stub message, so the same stub is the same object on every request.
 */
export function applyPruned(
  messages: readonly ModelMessage[],
  pruned: ReadonlySet<string>,
  stubs: Map<string, ModelMessage>,
): ModelMessage[] {
  if (pruned.size === 0) return [...messages];
  return messages.map((message) => {
    if (message.role !== 'tool' || !pruned.has(message.callId)) return message;
    let stub = stubs.get(message.callId);
    if (!stub) {
      // A pruned result's images go with its text.
      const { images: _images, ...rest } = message;
      stub = { ...rest, content: prunedStub(message.toolName, message.callId) };
      stubs.set(message.callId, stub);
    }
    return stub;
  });
}

export interface PruneChoice {
  /** The call ids to prune, in the order chosen. */
  callIds: string[];
  /** The tokens the stubs save. */
  saved: number;
}

/**
 * Picks tool results to prune until `excess` tokens are saved or nothing prunable remains:
 * never those of the last `keepSteps` steps (an assistant message is a step), oldest step first
 * and, within a step, largest first; a result whose stub would not be smaller is never picked.
 * `pruned` are the ids already stubbed.
 */
export function choosePrunes(
  view: readonly ModelMessage[],
  pruned: ReadonlySet<string>,
  keepSteps: number,
  excess: number,
): PruneChoice {
  const steps: ToolMessage[][] = [];
  for (const message of view) {
    if (message.role === 'assistant') steps.push([]);
    else if (message.role === 'tool') steps[steps.length - 1]?.push(message);
  }
  const prunableSteps = steps.slice(0, Math.max(0, steps.length - keepSteps));
  const callIds: string[] = [];
  let saved = 0;
  for (const results of prunableSteps) {
    const candidates = results
      .filter((message) => !pruned.has(message.callId))
      .map((message) => ({ message, saving: savingOf(message) }))
      .filter((candidate) => candidate.saving > 0)
      .sort((a, b) => b.saving - a.saving);
    for (const { message, saving } of candidates) {
      if (saved >= excess) return { callIds, saved };
      callIds.push(message.callId);
      saved += saving;
    }
  }
  return { callIds, saved };
}

function savingOf(message: ToolMessage): number {
  const stub = prunedStub(message.toolName, message.callId).length;
  return tokensOfCharacters(charactersOfMessage(message)) - tokensOfCharacters(stub);
}
