/**
 * Failure classification of provider errors: each provider's way of saying a request is larger
 * than the context window (an HTTP error's message or body, a streamed error, a plain Error) is
 * a context overflow that is never retryable, and other errors are not.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { APICallError } from 'ai';
import { describeFailure, isContextOverflowMessage } from '../../src/llm/model-failure.js';

function httpError(status: number, message: string, body?: unknown): APICallError {
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: { 'retry-after': '3' },
    ...(body === undefined ? {} : { responseBody: JSON.stringify(body) }),
  });
}

describe('describeFailure: context overflow', () => {
  test('each provider form of "context length exceeded" is an overflow and not retryable', () => {
    const cases: Array<[string, unknown]> = [
      [
        'OpenAI, by its code in the body',
        httpError(400, 'Bad Request', {
          error: {
            message: 'Your input is too large for this model.',
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          },
        }),
      ],
      [
        'OpenAI and DeepSeek, by the message',
        httpError(
          400,
          "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (69000 in the messages, 1000 in the completion).",
        ),
      ],
      [
        'Anthropic',
        httpError(400, 'prompt is too long: 208000 tokens > 200000 maximum', {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'prompt is too long' },
        }),
      ],
      [
        'a streamed error payload',
        { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'too long' },
      ],
      ['a generic Error', new Error('context length exceeded')],
      ['the generic window wording', new Error('the input exceeds the context window of 8192')],
      ['llama.cpp', new Error('the request exceeds the available context size, try increasing it')],
      // Even a server that says so with a 5xx: the same request cannot fit the next time.
      ['a 503 that says so', httpError(503, 'maximum context length is 4096 tokens')],
    ];
    for (const [name, error] of cases) {
      const info = describeFailure(error);
      assert.equal(info.contextOverflow, true, name);
      assert.equal(info.retryable, false, name);
      assert.equal(info.retryAfterMs, undefined, name);
    }
  });

  test('an HTTP overflow keeps its status and message', () => {
    const info = describeFailure(httpError(400, 'prompt is too long: 208000 tokens > 200000'));
    assert.deepEqual(info, {
      message: 'HTTP 400: prompt is too long: 208000 tokens > 200000',
      status: 400,
      retryable: false,
      contextOverflow: true,
    });
  });

  test('other errors are no overflow', () => {
    for (const error of [
      httpError(400, 'Invalid tool schema'),
      httpError(429, 'Rate limit reached for tokens per minute'),
      new Error('boom'),
      { type: 'overloaded_error', message: 'Overloaded' },
    ]) {
      assert.equal(describeFailure(error).contextOverflow, undefined, String(error));
    }
    const aborted = Object.assign(new Error('context length exceeded'), { name: 'AbortError' });
    assert.equal(describeFailure(aborted).contextOverflow, undefined);
  });

  test('isContextOverflowMessage recognises the wordings, case-insensitively', () => {
    assert.ok(isContextOverflowMessage('Context Length Exceeded'));
    assert.ok(isContextOverflowMessage('input length and max_tokens exceed context limit'));
    assert.ok(!isContextOverflowMessage('upstream 500'));
  });
});
