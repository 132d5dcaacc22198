/**
 * One turn of an agent: steps of (request the model, run the tool calls it made) until the model
 * stops calling tools, a tool concludes the turn, the step limit is reached, or the turn is
 * cancelled. Every started event gets its end, on every path; failures of the model become a
 * `turn/end` with reason `error`, never an exception out of `runTurn`.
 */
import {
  addUsage,
  emptyUsage,
  type ModelClient,
  type ModelToolCall,
  type Usage,
} from '../llm/contract.js';
import { agentTurnStopping, type TurnOutcome } from './agent-hooks.js';
import type { Context } from './context.js';
import { errorMessage } from './errors.js';
import type { MessageProjection } from './messages.js';
import type { Delivery, TurnEndReason, TurnError } from './session-events.js';
import type { SessionLog } from './session-log.js';
import type { SystemPrompt } from './system-prompt.js';
import type { ToolPipeline } from './tool-pipeline.js';

export interface TurnLimits {
  /** Steps (model requests) a turn may take; reaching it ends the turn with `STEP_LIMIT`. */
  maxSteps: number;
  maxOutputTokens?: number;
  temperature?: number;
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
  takeSteering(): string[];
}

export interface IncomingMessage {
  text: string;
  delivery: Delivery;
}

interface StepOutcome {
  text: string;
  toolCalls: ModelToolCall[];
  finishReason: 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';
  usage: Usage;
  error?: TurnError;
}

export async function runTurn(
  environment: TurnEnvironment,
  incoming: IncomingMessage[],
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const { log } = environment;
  const turnId = `turn-${log.lastSeq + 1}`;
  log.append('turn/start', { turnId });
  for (const message of incoming) {
    log.append('user/message', { text: message.text, delivery: message.delivery, turnId });
  }
  let usage = emptyUsage();
  let steps = 0;
  let text = '';
  let concluded = false;
  let ending: { reason: TurnEndReason; error?: TurnError } = { reason: 'completed' };
  try {
    while (true) {
      if (signal.aborted) {
        ending = { reason: 'aborted' };
        break;
      }
      if (steps >= environment.limits.maxSteps) {
        const message = `the turn reached its step limit of ${environment.limits.maxSteps} steps`;
        ending = { reason: 'error', error: { code: 'STEP_LIMIT', message } };
        break;
      }
      for (const steer of environment.takeSteering()) {
        log.append('user/message', { text: steer, delivery: 'steer', turnId });
      }
      steps += 1;
      const step = await runStep(environment, turnId, steps, signal, () => {
        concluded = true;
      });
      usage = addUsage(usage, step.usage);
      if (step.text) text = step.text;
      if (signal.aborted) {
        ending = { reason: 'aborted' };
        break;
      }
      if (step.error) {
        ending = { reason: 'error', error: step.error };
        break;
      }
      if (step.toolCalls.length === 0) {
        ending = { reason: step.finishReason === 'length' ? 'max-tokens' : 'completed' };
        break;
      }
      if (concluded) break;
    }
  } catch (error) {
    ending = signal.aborted
      ? { reason: 'aborted' }
      : { reason: 'error', error: { code: 'INTERNAL', message: errorMessage(error) } };
  }
  try {
    ending = await environment.context.serial(
      agentTurnStopping,
      { agentId: environment.agentId, turnId, concluded },
      ending,
    );
  } catch (error) {
    ending = { reason: 'error', error: { code: 'INTERNAL', message: errorMessage(error) } };
  }
  const endData: {
    turnId: string;
    reason: TurnEndReason;
    error?: TurnError;
    usage: Usage;
    steps: number;
  } = {
    turnId,
    reason: ending.reason,
    usage,
    steps,
  };
  if (ending.error) endData.error = ending.error;
  log.append('turn/end', endData);
  log.flush();
  const outcome: TurnOutcome = { turnId, reason: ending.reason, text, usage, steps };
  if (ending.error) outcome.error = ending.error;
  return outcome;
}

async function runStep(
  environment: TurnEnvironment,
  turnId: string,
  step: number,
  signal: AbortSignal,
  concludeTurn: () => void,
): Promise<StepOutcome> {
  const { log } = environment;
  log.append('step/start', { turnId, step });
  let outcome: StepOutcome = {
    text: '',
    toolCalls: [],
    finishReason: 'error',
    usage: emptyUsage(),
  };
  try {
    outcome = await requestModel(environment, turnId, step, signal);
    if (outcome.toolCalls.length > 0 && !outcome.error) {
      for (const call of outcome.toolCalls) {
        log.append('tool/call', {
          turnId,
          step,
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
        });
      }
      await environment.tools.executeStep({
        calls: outcome.toolCalls,
        agentId: environment.agentId,
        turnId,
        signal,
        concludeTurn,
        onResult: (result) => {
          const data: {
            turnId: string;
            step: number;
            callId: string;
            name: string;
            content: string;
            isError: boolean;
            errorCode?: string;
          } = {
            turnId,
            step,
            callId: result.callId,
            name: result.name,
            content: result.content,
            isError: result.isError,
          };
          if (result.errorCode) data.errorCode = result.errorCode;
          log.append('tool/result', data);
        },
      });
    }
  } finally {
    log.append('step/end', {
      turnId,
      step,
      finishReason: outcome.finishReason,
      usage: outcome.usage,
    });
    log.flush();
  }
  return outcome;
}

async function requestModel(
  environment: TurnEnvironment,
  turnId: string,
  step: number,
  signal: AbortSignal,
): Promise<StepOutcome> {
  const { log, model, limits } = environment;
  const assembled = await environment.prompt.assemble(environment.tools.specs());
  log.append('request/header', {
    turnId,
    step,
    model: model.id,
    system: assembled.system,
    tools: assembled.tools,
  });
  const messages = environment.projection.update(log.events);
  log.flush();
  let text = '';
  let reasoning = '';
  let attempts = 1;
  const toolCalls: ModelToolCall[] = [];
  const request: Parameters<ModelClient['stream']>[0] = {
    system: assembled.system,
    messages,
    tools: assembled.tools,
    signal,
  };
  if (limits.maxOutputTokens !== undefined) request.maxOutputTokens = limits.maxOutputTokens;
  if (limits.temperature !== undefined) request.temperature = limits.temperature;
  for await (const part of model.stream(request)) {
    switch (part.type) {
      case 'text':
        text += part.text;
        log.append('assistant/chunk', { turnId, step, kind: 'text', text: part.text });
        break;
      case 'reasoning':
        reasoning += part.text;
        log.append('assistant/chunk', { turnId, step, kind: 'reasoning', text: part.text });
        break;
      case 'tool-call':
        toolCalls.push(part.call);
        break;
      case 'attempt-failed':
        attempts = part.attempt + 1;
        log.append('model/retry', {
          turnId,
          step,
          attempt: part.attempt,
          error: part.error,
          delayMs: part.delayMs,
        });
        break;
      case 'finish': {
        const message: {
          turnId: string;
          step: number;
          text: string;
          reasoning?: string;
          toolCalls: ModelToolCall[];
          finishReason: typeof part.reason;
          usage: Usage;
          model: string;
          attempts: number;
        } = {
          turnId,
          step,
          text,
          toolCalls,
          finishReason: part.reason,
          usage: part.usage,
          model: model.id,
          attempts,
        };
        if (reasoning) message.reasoning = reasoning;
        log.append('assistant/message', message);
        return { text, toolCalls, finishReason: part.reason, usage: part.usage };
      }
      case 'error': {
        const error: TurnError = {
          code: part.error.aborted ? 'ABORTED' : 'PROVIDER_ERROR',
          message: part.error.message,
        };
        return {
          text,
          toolCalls: [],
          finishReason: 'error',
          usage: part.usage ?? emptyUsage(),
          error,
        };
      }
    }
  }
  const error: TurnError = {
    code: 'PROVIDER_ERROR',
    message: `${model.id} ended its stream without finishing`,
  };
  return { text, toolCalls: [], finishReason: 'error', usage: emptyUsage(), error };
}
