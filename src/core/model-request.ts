/**
 * One model request of a step: assembles the prompt, logs it once per distinct content (a
 * `prompt/blob`, or a `prompt/stored` reference for a log that shares prompts) and the request
 * header that names it, derives the messages from the log (through the `model/view` hook, where
 * compaction shrinks them), waits until all that is on disk, and folds the streamed parts into
 * logged chunks and one `assistant/message`. A request the model refuses as larger than its window
 * is asked once more over a view the hook shrank. A failed or aborted stream is returned as data,
 * never thrown.
 */
import { dirname } from 'node:path';
import { assertNever, errorMessage, LoomError } from '../base/errors.js';
import {
  emptyUsage,
  type ModelErrorInfo,
  type ModelMessage,
  type ModelRequest,
  type ModelToolCall,
} from '../llm/contract.js';
import { blobStoreKey } from './blob-store.js';
import { modelTakesImages, withImagesResolved } from './image-view.js';
import { type ModelViewReason, modelView } from './model-view.js';
import { storePrompt } from './prompt-store.js';
import { hasPromptBlob, promptBlob } from './request-prompt.js';
import type { SessionEventMap, TurnError } from './session-events.js';
import { offeredTools } from './tool-loading.js';
import { presentedTools } from './tool-presentation.js';
import type { StepOutcome, TurnEnvironment } from './turn-environment.js';

export async function requestModel(
  environment: TurnEnvironment,
  turnId: string,
  step: number,
  signal: AbortSignal,
): Promise<StepOutcome> {
  const { log, model, limits } = environment;
  const offered = await presentedTools(
    environment.context,
    environment.agentId,
    offeredTools(environment.context, environment.tools.visible(), log.events),
  );
  const assembled = await environment.prompt.assemble(offered);
  const blob = promptBlob(assembled);
  const prompt = blob.hash;
  if (!hasPromptBlob(log.events, prompt)) {
    if (log.sharesPrompts) log.append('prompt/stored', storePrompt(dirname(log.path), blob));
    else log.appendShared('prompt/blob', blob.data, blob.json);
  }
  log.append('request/header', {
    turnId,
    step,
    model: model.id,
    prompt,
    ...(limits.effort !== undefined ? { effort: limits.effort } : {}),
  });
  const view = {
    agentId: environment.agentId,
    turnId,
    log,
    model,
    system: assembled.system,
    tools: assembled.tools,
  };
  // A layer that can shrink the view (compaction) gets one retry of a request that overflowed,
  // when it did shrink it: an unchanged view would only overflow again.
  const canShrink = environment.context.hasListeners(modelView);
  const viewFor = async (reason: ModelViewReason) => {
    const derived = environment.projection.update(log.events);
    const messages = canShrink
      ? await environment.context.serial(
          modelView,
          { ...view, reason, origins: environment.projection.origins(), signal },
          derived,
        )
      : derived;
    await log.written();
    return messages;
  };
  const takesImages = modelTakesImages(environment.context, model);
  const send = (messages: ModelMessage[], attempts: number) => {
    let sent: ModelMessage[];
    try {
      sent = withImagesResolved(messages, {
        takesImages,
        blobs: environment.context.find(blobStoreKey),
        owner: `session ${log.header.sessionId}`,
      });
    } catch (error) {
      return Promise.resolve(blobFailure(error));
    }
    const request: ModelRequest = {
      system: assembled.system,
      messages: sent,
      tools: assembled.tools,
      signal,
    };
    if (limits.maxOutputTokens !== undefined) request.maxOutputTokens = limits.maxOutputTokens;
    if (limits.temperature !== undefined) request.temperature = limits.temperature;
    if (limits.effort !== undefined) request.effort = limits.effort;
    return streamRequest(environment, turnId, step, request, attempts);
  };
  const messages = await viewFor('request');
  const outcome = await send(messages, 1);
  if (!outcome.overflow || !canShrink || signal.aborted) return outcome.result;
  const shrunk = await viewFor('overflow');
  if (JSON.stringify(shrunk) === JSON.stringify(messages)) return outcome.result;
  log.append('model/retry', {
    turnId,
    step,
    attempt: outcome.attempts,
    error: outcome.overflow,
    delayMs: 0,
  });
  return (await send(shrunk, outcome.attempts + 1)).result;
}

/** A request that could not be made because an image's blob is gone: the turn's error, nothing lost. */
function blobFailure(error: unknown): {
  result: StepOutcome;
  attempts: number;
  overflow?: ModelErrorInfo;
} {
  const turnError: TurnError = {
    code: error instanceof LoomError ? error.code : 'INTERNAL',
    message: errorMessage(error),
  };
  return {
    result: {
      kind: 'error',
      text: '',
      finishReason: 'error',
      usage: emptyUsage(),
      error: turnError,
    },
    attempts: 0,
  };
}

/** One request streamed: its outcome, and the failure when the model said it overflowed. */
async function streamRequest(
  environment: TurnEnvironment,
  turnId: string,
  step: number,
  request: ModelRequest,
  firstAttempt: number,
): Promise<{ result: StepOutcome; attempts: number; overflow?: ModelErrorInfo }> {
  const { log, model } = environment;
  let text = '';
  let reasoning = '';
  let attempts = firstAttempt;
  const toolCalls: ModelToolCall[] = [];
  for await (const part of model.stream(request)) {
    switch (part.type) {
      // The text as logged (without credentials) is the text every later reader gets.
      case 'text':
        text += log.append('assistant/chunk', { turnId, step, kind: 'text', text: part.text }).data
          .text;
        break;
      case 'reasoning':
        reasoning += log.append('assistant/chunk', {
          turnId,
          step,
          kind: 'reasoning',
          text: part.text,
        }).data.text;
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
        const message: SessionEventMap['assistant/message'] = {
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
        if (reasoning && part.reasoningSignature !== undefined) {
          message.reasoningSignature = part.reasoningSignature;
        }
        log.append('assistant/message', message);
        const result: StepOutcome = {
          kind: 'finished',
          text,
          toolCalls,
          finishReason: part.reason,
          usage: part.usage,
        };
        return { result, attempts };
      }
      case 'error': {
        const error: TurnError = {
          code: part.error.aborted ? 'ABORTED' : 'PROVIDER_ERROR',
          message: part.error.message,
        };
        const result: StepOutcome = {
          kind: 'error',
          text,
          finishReason: 'error',
          usage: part.usage ?? emptyUsage(),
          error,
        };
        return part.error.contextOverflow
          ? { result, attempts, overflow: part.error }
          : { result, attempts };
      }
      default:
        return assertNever(part, 'model stream part');
    }
  }
  const error: TurnError = {
    code: 'PROVIDER_ERROR',
    message: `${model.id} ended its stream without finishing`,
  };
  return {
    result: { kind: 'error', text, finishReason: 'error', usage: emptyUsage(), error },
    attempts,
  };
}
