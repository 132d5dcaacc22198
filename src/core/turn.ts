/**
 * One turn of an agent: steps of (request the model, run the tool calls it made) until the model
 * stops calling tools, a tool concludes the turn, the step limit is reached, or the turn is
 * cancelled. Every started event gets its end, on every path; failures of the model become a
 * `turn/end` with reason `error`, never an exception out of `runTurn`.
 */

import { errorMessage } from '../base/errors.js';
import { addUsage, emptyUsage } from '../llm/contract.js';
import {
  agentTurnContinuing,
  agentTurnStarting,
  agentTurnStopping,
  type TurnAdmission,
  type TurnEnding,
  type TurnMessage,
  type TurnOutcome,
} from './agent-hooks.js';
import { requestModel } from './model-request.js';
import type { SessionEvent, SessionEventMap } from './session-events.js';
import { toolProgressReported } from './tool-execution.js';
import { autoLoadCalled } from './tool-loading.js';
import type { StepOutcome, TurnEnvironment } from './turn-environment.js';

export type IncomingMessage = TurnMessage;

function userMessage(message: IncomingMessage, turnId: string): SessionEventMap['user/message'] {
  const data: SessionEventMap['user/message'] = {
    text: message.text,
    delivery: message.delivery,
    turnId,
  };
  if (message.source !== undefined) data.source = message.source;
  if (message.round !== undefined) data.round = message.round;
  if (message.images !== undefined && message.images.length > 0) data.images = message.images;
  return data;
}

export async function runTurn(
  environment: TurnEnvironment,
  incoming: IncomingMessage[],
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const { log } = environment;
  const turnId = `turn-${log.lastSeq + 1}`;
  log.append('turn/start', { turnId });
  const admission = await admit(environment, turnId, incoming, signal);
  if (admission.kind === 'start') {
    for (const message of admission.messages) {
      log.append('user/message', userMessage(message, turnId));
    }
  }
  let usage = emptyUsage();
  // A side request (a compaction's summary) made during the turn is part of what it spent.
  const stopCountingSideRequests = log.onAppend((event) => {
    if (event.type !== 'model/side-request') return;
    const data = (event as SessionEvent<'model/side-request'>).data;
    if (data.turnId === turnId) usage = addUsage(usage, data.usage);
  });
  let steps = 0;
  let text = '';
  let concluded = false;
  let ending: TurnEnding =
    admission.kind === 'refused'
      ? { reason: 'error', error: admission.error }
      : { reason: 'completed' };
  let continued = 0;
  try {
    while (admission.kind === 'start') {
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
        log.append('user/message', userMessage({ ...steer, delivery: 'steer' }, turnId));
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
      if (step.kind === 'error') {
        ending = { reason: 'error', error: step.error };
        break;
      }
      if (step.toolCalls.length === 0) {
        const asks =
          step.finishReason !== 'length' &&
          !concluded &&
          environment.context.hasListeners(agentTurnContinuing);
        const more = !asks
          ? undefined
          : await environment.context.serial(
              agentTurnContinuing,
              { agentId: environment.agentId, turnId, text: step.text, continued, signal },
              undefined,
            );
        if (more !== undefined && !signal.aborted) {
          continued += 1;
          const message = { text: more.text, source: more.source, delivery: 'steer' as const };
          log.append('user/message', userMessage(message, turnId));
          continue;
        }
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
  stopCountingSideRequests();
  const endData: SessionEventMap['turn/end'] = {
    turnId,
    reason: ending.reason,
    usage,
    steps,
  };
  if (ending.reason === 'error') endData.error = ending.error;
  log.append('turn/end', endData);
  log.flush();
  const outcome = { turnId, text, usage, steps };
  return ending.reason === 'error'
    ? { ...outcome, reason: ending.reason, error: ending.error }
    : { ...outcome, reason: ending.reason };
}

/** The turn's messages, as the `agent/turn-starting` handlers leave them; a throw refuses. */
async function admit(
  environment: TurnEnvironment,
  turnId: string,
  incoming: IncomingMessage[],
  signal: AbortSignal,
): Promise<TurnAdmission> {
  const { context, agentId } = environment;
  const initial: TurnAdmission = { kind: 'start', messages: incoming };
  if (!context.hasListeners(agentTurnStarting)) return initial;
  try {
    return await context.serial(agentTurnStarting, { agentId, turnId, signal }, initial);
  } catch (error) {
    return { kind: 'refused', error: { code: 'INTERNAL', message: errorMessage(error) } };
  }
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
  let ended: Pick<StepOutcome, 'finishReason' | 'usage'> = {
    finishReason: 'error',
    usage: emptyUsage(),
  };
  try {
    const outcome = await requestModel(environment, turnId, step, signal);
    ended = outcome;
    if (outcome.kind === 'finished' && outcome.toolCalls.length > 0) {
      for (const call of outcome.toolCalls) {
        log.append('tool/call', {
          turnId,
          step,
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
        });
      }
      // A deferred tool called before it was loaded is loaded by the call: its schema comes next.
      autoLoadCalled(
        environment.context,
        log,
        environment.tools.visible(),
        outcome.toolCalls,
        turnId,
      );
      const stopProgress = environment.context.on(toolProgressReported, (report) => {
        const { execution } = report;
        if (execution.turnId !== turnId || execution.parentToken !== undefined) return;
        if (log.closed) return;
        log.append('tool/progress', {
          turnId,
          step,
          callId: execution.callId,
          name: execution.name,
          ...(report.progress !== undefined ? { progress: report.progress } : {}),
          ...(report.total !== undefined ? { total: report.total } : {}),
          ...(report.message !== undefined ? { message: report.message } : {}),
        });
      });
      try {
        await environment.tools.executeStep({
          calls: outcome.toolCalls,
          agentId: environment.agentId,
          turnId,
          signal,
          concludeTurn,
          onResult: (result) => {
            const data: SessionEventMap['tool/result'] = {
              turnId,
              step,
              callId: result.callId,
              name: result.name,
              content: result.content,
              isError: result.isError,
            };
            if (result.errorCode) data.errorCode = result.errorCode;
            if (result.details) data.details = result.details;
            if (result.images) data.images = result.images;
            log.append('tool/result', data);
          },
        });
      } finally {
        stopProgress();
      }
    }
    return outcome;
  } finally {
    // Written with the turn's end, or before the next step's request (see `requestModel`).
    log.append('step/end', {
      turnId,
      step,
      finishReason: ended.finishReason,
      usage: ended.usage,
    });
  }
}
