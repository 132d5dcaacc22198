/**
 * The hook through which layers restate where an agent stands (its goal, open todos, plan mode,
 * schedules) when the model's view has lost older history to a compaction. A serial fold over
 * text blocks: each handler appends its own block, folded from the agent's log, or nothing when
 * it has nothing standing. Core offers it and calls no one; the context layer asks at each
 * compaction and logs the answer in the `context/compact` event, so the view stays log-derived.
 */
import { type Context, type Disposer, defineSerial } from './context.js';

export interface StandingStateInput {
  agentId: string;
}

/** Each handler returns the blocks it was given plus its own (a short markdown block). */
export const standingState = defineSerial<StandingStateInput, string[]>('agent/standing-state');

/**
 * Answers `standingState` on `context` for `agentId` with the block `text` gives when asked: an
 * empty text (nothing standing) adds no block, and a question about another agent adds nothing.
 * `text` must not throw; blocks come in the order handlers were registered.
 */
export function addStandingState(context: Context, agentId: string, text: () => string): Disposer {
  return context.handle(standingState, (input, blocks) => {
    if (input.agentId !== agentId) return blocks;
    const block = text();
    return block === '' ? blocks : [...blocks, block];
  });
}

/** The standing state of `agentId` asked on `context`: its blocks joined, or undefined when none. */
export async function standingStateText(
  context: Context,
  agentId: string,
): Promise<string | undefined> {
  const blocks = await context.serial(standingState, { agentId }, []);
  const text = blocks.filter((block) => block.trim() !== '').join('\n\n');
  return text === '' ? undefined : text;
}
