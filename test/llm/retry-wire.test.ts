/**
 * Retry and redaction over the wire: HTTP failures served from a loopback server to clients made
 * by `createModelClient`, with the retry wait injected so no test sleeps for real. A fake key
 * must never appear in any part, even when the server echoes it.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { ModelStreamPart } from '../../src/llm/contract.js';
import { type CreateModelClientOptions, createModelClient } from '../../src/llm/providers.js';
import { withRetry } from '../../src/llm/retry.js';
import { readFixture, withReplayServer } from './replay-server.js';
import {
  collectParts,
  fakeKey,
  joinedText,
  lastPart,
  localDeepseekOptions,
  makeRequest,
  recordingSleep,
} from './stream-helpers.js';

const server = withReplayServer();

const options = (extra: Partial<CreateModelClientOptions> = {}) =>
  localDeepseekOptions(server.url, extra);

const spec = 'local-deepseek:deepseek-chat';
const answer = () => ({ chunks: [readFixture('deepseek-tool-call.sse')] });
const failure = (status: number, message: string, headers: Record<string, string> = {}) => ({
  status,
  headers,
  body: JSON.stringify({
    error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' },
  }),
});

function count(parts: ModelStreamPart[], type: ModelStreamPart['type']): number {
  return parts.filter((part) => part.type === type).length;
}

describe('retry over the wire', () => {
  test('a 429 with Retry-After: 0 is retried once, then the content streams', async () => {
    const before = server.requests.length;
    server.enqueue(failure(429, 'Rate limit reached', { 'retry-after': '0' }), answer());
    const { sleep, waits } = recordingSleep();
    const client = withRetry(createModelClient(spec, options({ retry: false })), {}, sleep);
    const parts = await collectParts(client.stream(makeRequest()));

    assert.deepEqual(parts[0], {
      type: 'attempt-failed',
      attempt: 1,
      delayMs: 0,
      error: {
        message: 'HTTP 429: Rate limit reached',
        status: 429,
        retryable: true,
        retryAfterMs: 0,
      },
    });
    assert.equal(count(parts, 'attempt-failed'), 1);
    assert.equal(parts[1]?.type, 'tool-call');
    assert.equal(lastPart(parts)?.type, 'finish');
    assert.deepEqual(waits, [0]);
    assert.equal(server.requests.length - before, 2);
  });

  test('the default policy of createModelClient retries a 429 too', async () => {
    const before = server.requests.length;
    server.enqueue(failure(429, 'Rate limit reached', { 'retry-after': '0' }), answer());
    const parts = await collectParts(createModelClient(spec, options()).stream(makeRequest()));
    assert.equal(count(parts, 'attempt-failed'), 1);
    assert.equal(lastPart(parts)?.type, 'finish');
    assert.equal(server.requests.length - before, 2);
  });

  test('a 400 is not retried', async () => {
    const before = server.requests.length;
    server.enqueue(failure(400, 'Invalid tool schema'));
    const { sleep, waits } = recordingSleep();
    const client = withRetry(createModelClient(spec, options({ retry: false })), {}, sleep);
    const parts = await collectParts(client.stream(makeRequest()));
    assert.deepEqual(parts, [
      {
        type: 'error',
        error: { message: 'HTTP 400: Invalid tool schema', status: 400, retryable: false },
      },
    ]);
    assert.deepEqual(waits, []);
    assert.equal(server.requests.length - before, 1);
  });

  test('a 400 context_length_exceeded is a context overflow and is not retried', async () => {
    const before = server.requests.length;
    server.enqueue({
      status: 400,
      headers: {},
      body: JSON.stringify({
        error: {
          message:
            "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens.",
          type: 'invalid_request_error',
          param: null,
          code: 'context_length_exceeded',
        },
      }),
    });
    const { sleep, waits } = recordingSleep();
    const client = withRetry(createModelClient(spec, options({ retry: false })), {}, sleep);
    const parts = await collectParts(client.stream(makeRequest()));
    assert.equal(parts.length, 1);
    const [part] = parts;
    assert.equal(part?.type, 'error');
    assert.equal(part.type === 'error' && part.error.contextOverflow, true);
    assert.equal(part.type === 'error' && part.error.retryable, false);
    assert.deepEqual(waits, []);
    assert.equal(server.requests.length - before, 1);
  });

  test('a 500 three times, then success: three attempt-failed parts with growing waits', async () => {
    const before = server.requests.length;
    server.enqueue(
      failure(500, 'Internal error'),
      failure(500, 'Internal error'),
      failure(503, 'Service unavailable'),
      answer(),
    );
    const { sleep, waits } = recordingSleep();
    const client = withRetry(createModelClient(spec, options({ retry: false })), {}, sleep);
    const parts = await collectParts(client.stream(makeRequest()));

    const failed = parts.filter((part) => part.type === 'attempt-failed');
    assert.deepEqual(
      failed.map((part) => [part.attempt, part.error.status]),
      [
        [1, 500],
        [2, 500],
        [3, 503],
      ],
    );
    assert.equal(waits.length, 3);
    assert.ok(waits[0] !== undefined && waits[0] >= 250 && waits[0] <= 500);
    assert.ok(waits[1] !== undefined && waits[1] >= 500 && waits[1] <= 1000);
    assert.ok(waits[2] !== undefined && waits[2] >= 1000 && waits[2] <= 2000);
    assert.equal(lastPart(parts)?.type, 'finish');
    assert.equal(server.requests.length - before, 4);
  });

  test('past maxAttempts the last error passes through', async () => {
    server.enqueue(failure(502, 'Bad gateway'), failure(502, 'Bad gateway'));
    const { sleep } = recordingSleep();
    const client = withRetry(
      createModelClient(spec, options({ retry: false })),
      { maxAttempts: 2 },
      sleep,
    );
    const parts = await collectParts(client.stream(makeRequest()));
    assert.deepEqual(
      parts.map((part) => part.type),
      ['attempt-failed', 'error'],
    );
    assert.deepEqual(lastPart(parts), {
      type: 'error',
      error: { message: 'HTTP 502: Bad gateway', status: 502, retryable: true },
    });
  });

  test('a refused connection is a retryable network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const client = createModelClient('gone:deepseek-chat', {
      routes: { gone: { provider: 'deepseek', baseURL: `http://127.0.0.1:${port}` } },
      env: { DEEPSEEK_API_KEY: fakeKey },
      retry: false,
    });
    const parts = await collectParts(client.stream(makeRequest()));
    const last = lastPart(parts);
    assert.ok(last?.type === 'error');
    assert.equal(last.error.retryable, true);
    assert.match(last.error.message, /ECONNREFUSED|connect/i);
  });
});

describe('redaction', () => {
  test('a key echoed in error bodies never reaches any part', async () => {
    server.enqueue(
      failure(500, `upstream rejected Authorization: Bearer ${fakeKey}`),
      failure(401, `Authentication Fails (your api key: ${fakeKey} is invalid)`),
    );
    const { sleep } = recordingSleep();
    const client = withRetry(createModelClient(spec, options({ retry: false })), {}, sleep);
    const parts = await collectParts(client.stream(makeRequest()));
    const serialized = JSON.stringify(parts);
    assert.equal(serialized.includes(fakeKey), false);
    assert.equal(serialized.includes('[redacted]'), true);
    assert.deepEqual(lastPart(parts), {
      type: 'error',
      error: {
        message: 'HTTP 401: Authentication Fails (your api key: [redacted] is invalid)',
        status: 401,
        retryable: false,
      },
    });
  });

  test('a key set with surrounding whitespace is sent trimmed and redacted as sent', async () => {
    const before = server.requests.length;
    const basic = Buffer.from(`user:${fakeKey}`).toString('base64');
    server.enqueue(
      failure(401, `bad key ${fakeKey}; you sent Basic ${basic} and x-api-key ${fakeKey}`),
    );
    const client = createModelClient(
      spec,
      options({ retry: false, env: { DEEPSEEK_API_KEY: ` ${fakeKey}\t\n` } }),
    );
    const parts = await collectParts(client.stream(makeRequest()));
    assert.equal(server.requests[before]?.headers.authorization, `Bearer ${fakeKey}`);
    const serialized = JSON.stringify(parts);
    assert.equal(serialized.includes(fakeKey), false);
    assert.equal(serialized.includes(basic.slice(8, 40)), false);
    const last = lastPart(parts);
    assert.equal(
      last?.type === 'error' && last.error.message,
      'HTTP 401: bad key [redacted]; you sent Basic [redacted] and x-api-key [redacted]',
    );
  });

  test('a key echoed in a streamed error event is redacted too', async () => {
    server.enqueue({
      chunks: [
        `data: ${JSON.stringify({ error: { message: `bad key ${fakeKey}`, type: 'server_error' } })}\n\n`,
      ],
    });
    const parts = await collectParts(
      createModelClient(spec, options({ retry: false })).stream(makeRequest()),
    );
    assert.equal(JSON.stringify(parts).includes(fakeKey), false);
    assert.equal(count(parts, 'error'), 1);
    assert.equal(joinedText(parts), '');
  });
});
