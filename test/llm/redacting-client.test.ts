/**
 * The redacting layer every API client ends with: error and retry messages lose the key in every
 * form, content passes untouched, and a throwing inner client becomes a redacted `error` part.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ModelClient, ModelStreamPart } from '../../src/llm/contract.js';
import { redactingModelClient } from '../../src/llm/redacting-client.js';
import { collectParts, makeRequest } from './stream-helpers.js';

const keyAsSet = 'sk-redact-5d1e9a7c3b2f4068 ';
const keyAsSent = keyAsSet.trim();
const basic = Buffer.from(`me:${keyAsSent}`).toString('base64');

function clientOf(parts: ModelStreamPart[], thenThrow?: Error): ModelClient {
  return {
    id: 'fake:model',
    async *stream() {
      yield* parts;
      if (thenThrow) throw thenThrow;
    },
  };
}

describe('redactingModelClient', () => {
  test('attempt-failed and error messages are redacted; text passes untouched', async () => {
    const inner = clientOf([
      {
        type: 'attempt-failed',
        attempt: 1,
        delayMs: 0,
        error: { message: `HTTP 429: slow down ${keyAsSent}`, status: 429, retryable: true },
      },
      { type: 'text', text: 'partial' },
      { type: 'error', error: { message: `HTTP 401: Basic ${basic}`, retryable: false } },
    ]);
    const parts = await collectParts(
      redactingModelClient(inner, () => [keyAsSet]).stream(makeRequest()),
    );
    assert.deepEqual(parts, [
      {
        type: 'attempt-failed',
        attempt: 1,
        delayMs: 0,
        error: { message: 'HTTP 429: slow down [redacted]', status: 429, retryable: true },
      },
      { type: 'text', text: 'partial' },
      { type: 'error', error: { message: 'HTTP 401: Basic [redacted]', retryable: false } },
    ]);
  });

  test('a throwing inner client ends with one redacted error part', async () => {
    const inner = clientOf([], new Error(`connect failed for x-api-key ${keyAsSent}`));
    const parts = await collectParts(
      redactingModelClient(inner, () => [keyAsSet]).stream(makeRequest()),
    );
    assert.deepEqual(parts, [
      {
        type: 'error',
        error: {
          message: 'model client fake:model threw: connect failed for x-api-key [redacted]',
          retryable: false,
        },
      },
    ]);
  });

  test('when the credentials cannot be read, the message is withheld, not shown', async () => {
    const inner = clientOf([{ type: 'error', error: { message: keyAsSent, retryable: false } }]);
    const parts = await collectParts(
      redactingModelClient(inner, () => {
        throw new Error('environment unreadable');
      }).stream(makeRequest()),
    );
    assert.equal(JSON.stringify(parts).includes(keyAsSent), false);
    assert.match(JSON.stringify(parts), /could not be shown safely/);
  });
});
