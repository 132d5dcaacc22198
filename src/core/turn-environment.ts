/**
 * What one turn runs against (its agent, log, model, tools, prompt and limits) and what one model
 * request of a step gives back: the types shared by the turn loop (turn.ts) and its model request
 * (model-request.ts). Types only; it must never hold behaviour, so neither side imports the other.
 */
import type {
  FinishReason,
  ImageReference,
  ModelClient,
  ModelToolCall,
  ReasoningEffort,
  Usage,
} from '../llm/contract.js';
import type { Context } from './context.js';
import type { MessageProjection } from './messages.js';
import type { TurnError } from './session-events.js';
import type { SessionLog } from './session-log.js';
import type { SystemPrompt } from './system-prompt.js';
import type { ToolPipeline } from './tool-pipeline.js';

export interface TurnLimits {
  /** Steps (model requests) a turn may take; reaching it ends the turn with `STEP_LIMIT`. */
  maxSteps: number;
  maxOutputTokens?: number;
  temperature?: number;
  /** How hard the model thinks (`ModelRequest.effort`); absent: the route's default. */
  effort?: ReasoningEffort;
}

export interface TurnEnvironment {
  agentId: string;
  context: Context;
  log: SessionLog;
  model: ModelClient;
  tools: ToolPipeline;
  prompt: SystemPrompt;
  projection: MessageProjection;
  limits: TurnLimits;
  /** Steering messages that arrived since the last step; each is taken once. */
  takeSteering(): Array<{
    text: string;
    source?: string;
    round?: number;
    images?: ImageReference[];
  }>;
}

/** One model request's result: the model finished (possibly calling tools), or it failed. */
export type StepOutcome =
  | {
      kind: 'finished';
      text: string;
      toolCalls: ModelToolCall[];
      finishReason: FinishReason;
      usage: Usage;
    }
  | { kind: 'error'; text: string; finishReason: 'error'; usage: Usage; error: TurnError };
