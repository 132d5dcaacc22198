/**
 * The hook through which layers restate where an agent stands (its goal, open todos, plan mode,
 * schedules) when the model's view has lost older history to a compaction. A serial fold over
 * text blocks: each handler appends its own block, folded from the agent's log, or nothing when
 * it has nothing standing. Core offers it and calls no one; the context layer asks at each
 * compaction and logs the answer in the `context/compact` event, so the view stays log-derived.
 */
import { defineSerial } from './context.js';

export interface StandingStateInput {
  agentId: string;
}

/** Each handler returns the blocks it was given plus its own (a short markdown block). */
export const standingState = defineSerial<StandingStateInput, string[]>('agent/standing-state');
