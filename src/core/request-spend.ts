/**
 * What one logged model request spent: an `assistant/message` (a step of the conversation) or a
 * `model/side-request` (a request made for the agent beside it, such as a compaction's summary).
 * Everything that adds up tokens or cost reads requests through this, so neither kind is missed.
 */
import type { Usage } from '../llm/contract.js';
import type { SessionEvent } from './session-events.js';

export interface RequestSpend {
  model: string;
  usage: Usage;
  /** The turn it ran in; absent for a side request made outside one (a manual compaction). */
  turnId?: string;
}

/** The spend of `event` when it records a finished model request, else undefined. */
export function requestSpend(event: { type: string; data: unknown }): RequestSpend | undefined {
  if (event.type === 'assistant/message') {
    const { model, usage, turnId } = (event as SessionEvent<'assistant/message'>).data;
    return { model, usage, turnId };
  }
  if (event.type === 'model/side-request') {
    const { model, usage, turnId } = (event as SessionEvent<'model/side-request'>).data;
    return turnId === undefined ? { model, usage } : { model, usage, turnId };
  }
  return undefined;
}
