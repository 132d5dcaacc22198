/**
 * The hook through which a layer changes what the model sees before a request (context
 * compaction): a serial fold over the messages derived from the log. Core offers it and knows no
 * policy; a handler may append events to the log but must derive its view from the log alone, so
 * a reloaded session sees the same view. It must never change a logged event.
 */
import type { ModelClient, ModelMessage, ModelToolSpec } from '../llm/contract.js';
import { defineSerial } from './context.js';
import type { SessionLog } from './session-log.js';

/**
 * Why the view is asked for: `request` before each request; `overflow` when the previous attempt
 * of the same request was refused as larger than the model's context window.
 */
export type ModelViewReason = 'request' | 'overflow';

export interface ModelViewInput {
  agentId: string;
  /** The turn the request belongs to (a side request it makes is logged with it). */
  turnId: string;
  log: SessionLog;
  model: ModelClient;
  /** The request's system prompt and tools, as they will be sent. */
  system: string;
  tools: readonly ModelToolSpec[];
  reason: ModelViewReason;
  /** The `seq` of the logged event each derived message came from (MessageProjection.origins). */
  origins: readonly number[];
  /** The turn's signal: a handler that makes its own model request (a summary) passes it on. */
  signal: AbortSignal;
}

export const modelView = defineSerial<ModelViewInput, ModelMessage[]>('model/view');
