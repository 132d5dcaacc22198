/**
 * The retry policy against scripted fake clients: when it retries, when it must not, the waits it
 * asks for, abort during a wait, policy validation and the default timer sleep.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UserError } from '../../src/base/errors.js';
import type { ModelClient, ModelErrorInfo, ModelStreamPart } from '../../src/llm/contract.js';
import { defaultRetryPolicy, retryDelay, sleepWithTimers, withRetry } from '../../src/llm/retry.js';
import { collectParts, makeRequest, recordingSleep } from './stream-helpers.js';

const retryable: ModelErrorInfo = { message: 'HTTP 503: busy', status: 503, retryable: true };
const done: ModelStreamPart = { type: 'finish', reason: 'stop', usage: { input: 1, output: 1 } };

/** A client that answers attempt N with the Nth script (the last repeats). */
function scriptedClient(scripts: ModelStreamPart[][]): ModelClient & { attempts: number } {
  const client = {
    id: 'fake:model',
    attempts: 0,
    async *stream() {
      const script = scripts[Math.min(client.attempts, scripts.length - 1)] ?? [];
      client.attempts++;
      yield* script;
    },
  };
  return client;
}

describe('withRetry', () => {
  test('keeps the id and passes a clean stream through untouched', async () => {
    const inner = scriptedClient([[{ type: 'text', text: 'ok' }, done]]);
    const client = withRetry(inner);
    assert.equal(client.id, 'fake:model');
    assert.deepEqual(await collectParts(client.stream(makeRequest())), [
      { type: 'text', text: 'ok' },
      done,
    ]);
  });

  test('never retries once content was yielded', async () => {
    const inner = scriptedClient([
      [
        { type: 'text', text: 'half' },
        { type: 'error', error: retryable },
      ],
      [done],
    ]);
    const parts = await collectParts(
      withRetry(inner, {}, recordingSleep().sleep).stream(makeRequest()),
    );
    assert.deepEqual(parts, [
      { type: 'text', text: 'half' },
      { type: 'error', error: retryable },
    ]);
    assert.equal(inner.attempts, 1);
  });

  test('never retries an error that is not retryable or is an abort', async () => {
    for (const error of [
      { message: 'HTTP 400', status: 400, retryable: false },
      { message: 'aborted', retryable: true, aborted: true },
    ]) {
      const inner = scriptedClient([[{ type: 'error', error }], [done]]);
      const parts = await collectParts(
        withRetry(inner, {}, recordingSleep().sleep).stream(makeRequest()),
      );
      assert.deepEqual(parts, [{ type: 'error', error }]);
      assert.equal(inner.attempts, 1);
    }
  });

  test('never retries a context overflow, even one marked retryable', async () => {
    const error = {
      message: 'HTTP 400: context length exceeded',
      retryable: true,
      contextOverflow: true,
    };
    const inner = scriptedClient([[{ type: 'error', error }], [done]]);
    const { sleep, waits } = recordingSleep();
    const parts = await collectParts(withRetry(inner, {}, sleep).stream(makeRequest()));
    assert.deepEqual(parts, [{ type: 'error', error }]);
    assert.equal(inner.attempts, 1);
    assert.deepEqual(waits, []);
  });

  test('keeps the limits the client states', () => {
    const inner = { ...scriptedClient([[done]]), limits: { context: 16_384, images: true } };
    assert.deepEqual(withRetry(inner).limits, { context: 16_384, images: true });
    assert.equal(withRetry(scriptedClient([[done]])).limits, undefined);
  });

  test('respects Retry-After up to maxDelayMs', async () => {
    const inner = scriptedClient([
      [{ type: 'error', error: { ...retryable, retryAfterMs: 60_000 } }],
      [done],
    ]);
    const { sleep, waits } = recordingSleep();
    const parts = await collectParts(
      withRetry(inner, { maxDelayMs: 1500 }, sleep).stream(makeRequest()),
    );
    assert.deepEqual(waits, [1500]);
    assert.deepEqual(parts[0], {
      type: 'attempt-failed',
      attempt: 1,
      error: { ...retryable, retryAfterMs: 60_000 },
      delayMs: 1500,
    });
    assert.equal(parts.at(-1), done);
  });

  test('an abort during the wait ends with one aborted error and no further attempt', async () => {
    const inner = scriptedClient([[{ type: 'error', error: retryable }], [done]]);
    const controller = new AbortController();
    const sleep = async () => {
      controller.abort();
      throw new Error('sleep interrupted');
    };
    const parts = await collectParts(
      withRetry(inner, {}, sleep).stream(makeRequest({ signal: controller.signal })),
    );
    assert.deepEqual(
      parts.map((part) => part.type),
      ['attempt-failed', 'error'],
    );
    assert.equal(parts[1]?.type === 'error' && parts[1].error.aborted, true);
    assert.equal(inner.attempts, 1);
  });

  test('a client that throws anyway becomes an error part', async () => {
    const throwing: ModelClient = {
      id: 'broken',
      // biome-ignore lint/correctness/useYield: the point of this fake is to throw before yielding.
      async *stream() {
        throw new Error('boom');
      },
    };
    const parts = await collectParts(withRetry(throwing).stream(makeRequest()));
    assert.deepEqual(parts, [
      { type: 'error', error: { message: 'model client broken threw: boom', retryable: false } },
    ]);
  });

  test('an invalid policy is a UserError naming the field', () => {
    const inner = scriptedClient([[done]]);
    assert.throws(
      () => withRetry(inner, { maxAttempts: 0 }),
      (error: unknown) => {
        assert.ok(error instanceof UserError);
        assert.equal(error.code, 'INVALID_CONFIG');
        assert.match(error.message, /maxAttempts/);
        return true;
      },
    );
    assert.throws(() => withRetry(inner, { baseDelayMs: -1 }), /baseDelayMs/);
    assert.throws(() => withRetry(inner, { tries: 3 } as never), /unknown field "tries"/);
  });
});

describe('retryDelay', () => {
  test('doubles per attempt with jitter in the upper half, capped at maxDelayMs', () => {
    const policy = { ...defaultRetryPolicy };
    assert.equal(
      retryDelay(1, undefined, policy, () => 0),
      250,
    );
    assert.equal(
      retryDelay(1, undefined, policy, () => 1),
      500,
    );
    assert.equal(
      retryDelay(3, undefined, policy, () => 1),
      2000,
    );
    assert.equal(
      retryDelay(10, undefined, policy, () => 1),
      20_000,
    );
    assert.equal(retryDelay(2, 0, policy), 0);
    assert.equal(retryDelay(2, 90_000, policy), 20_000);
  });
});

describe('sleepWithTimers', () => {
  test('waits, and returns early when the signal aborts', async () => {
    const started = Date.now();
    await sleepWithTimers(20, new AbortController().signal);
    assert.ok(Date.now() - started >= 15);
    const controller = new AbortController();
    const pending = sleepWithTimers(60_000, controller.signal);
    controller.abort();
    await pending;
    await sleepWithTimers(60_000, controller.signal);
  });
});
