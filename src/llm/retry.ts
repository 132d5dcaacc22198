/**
 * Retrying as a policy around a `ModelClient`. An attempt that fails with a retryable error
 * before it streamed any content is announced with an `attempt-failed` part and tried again after
 * an exponential, jittered, abortable wait. It never retries once content was streamed, after an
 * abort or a context overflow (the same request cannot fit the next time), or past `maxAttempts` (the last `error` part then passes through), and it never throws.
 */
import { errorMessage, UserError } from '../base/errors.js';
import type { ModelClient, ModelRequest, ModelStreamPart } from './contract.js';
import { abortedError } from './model-failure.js';

export interface RetryPolicy {
  /** Attempts in total, the first included; an integer of at least 1. Default 4. */
  maxAttempts: number;
  /** The wait before the second attempt; it doubles for each later one. Default 500. */
  baseDelayMs: number;
  /** The longest wait, a provider's Retry-After included. Default 20000. */
  maxDelayMs: number;
}

/** Waits `ms`, returning early (or rejecting) when the signal aborts. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const defaultRetryPolicy: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
});

/** Throws a UserError naming the field when the policy is not valid. */
export function withRetry(
  client: ModelClient,
  policy: Partial<RetryPolicy> = {},
  sleep: Sleep = sleepWithTimers,
): ModelClient {
  const resolved = resolveRetryPolicy(policy);
  return {
    id: client.id,
    ...(client.limits ? { limits: client.limits } : {}),
    ...(client.reasoningControl ? { reasoningControl: client.reasoningControl.bind(client) } : {}),
    stream: (request) => retryingStream(client, request, resolved, sleep),
  };
}

export function resolveRetryPolicy(policy: Partial<RetryPolicy>): RetryPolicy {
  for (const key of Object.keys(policy)) {
    if (!(key in defaultRetryPolicy)) {
      throw new UserError('INVALID_CONFIG', `retry policy has an unknown field "${key}"`);
    }
  }
  const resolved = { ...defaultRetryPolicy, ...policy };
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) {
    throw new UserError(
      'INVALID_CONFIG',
      `retry policy field "maxAttempts" must be an integer of at least 1, got ${resolved.maxAttempts}`,
    );
  }
  for (const field of ['baseDelayMs', 'maxDelayMs'] as const) {
    const value = resolved[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new UserError(
        'INVALID_CONFIG',
        `retry policy field "${field}" must be a number of at least 0, got ${value}`,
      );
    }
  }
  return resolved;
}

/**
 * The wait after failed attempt `attempt` (1-based): the provider's Retry-After when given,
 * otherwise `baseDelayMs * 2^(attempt - 1)` with the upper half jittered; never above maxDelayMs.
 */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, Math.max(0, retryAfterMs));
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

async function* retryingStream(
  client: ModelClient,
  request: ModelRequest,
  policy: RetryPolicy,
  sleep: Sleep,
): AsyncGenerator<ModelStreamPart> {
  for (let attempt = 1; ; attempt++) {
    let producedContent = false;
    let failure: Extract<ModelStreamPart, { type: 'error' }> | undefined;
    for await (const part of guardedStream(client, request)) {
      if (part.type === 'error') {
        failure = part;
        break;
      }
      if (part.type === 'text' || part.type === 'reasoning' || part.type === 'tool-call') {
        producedContent = true;
      }
      yield part;
    }
    if (failure === undefined) return;
    const { error } = failure;
    const retry =
      error.retryable &&
      !error.aborted &&
      !error.contextOverflow &&
      !producedContent &&
      !request.signal.aborted &&
      attempt < policy.maxAttempts;
    if (!retry) {
      yield failure;
      return;
    }
    const delayMs = retryDelay(attempt, error.retryAfterMs, policy);
    yield { type: 'attempt-failed', attempt, error, delayMs };
    try {
      await sleep(delayMs, request.signal);
    } catch {
      // An aborted sleep may reject; the signal check below reports it.
    }
    if (request.signal.aborted) {
      yield { type: 'error', error: abortedError() };
      return;
    }
  }
}

/** The inner client must not throw; if it does anyway, the throw becomes an `error` part. */
async function* guardedStream(
  client: ModelClient,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  try {
    yield* client.stream(request);
  } catch (error) {
    yield {
      type: 'error',
      error: request.signal.aborted
        ? abortedError()
        : { message: `model client ${client.id} threw: ${errorMessage(error)}`, retryable: false },
    };
  }
}

export function sleepWithTimers(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
  });
}
