/**
 * The AI SDK adapter against a fake LanguageModelV3: how our request becomes call options and a
 * prompt, how provider parts and failures become our parts, and that the stream never throws.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { APICallError } from 'ai';
import { LoomError } from '../../src/base/errors.js';
import { AiSdkModelClient, toUsage } from '../../src/llm/ai-sdk-client.js';
import { parseRetryAfter } from '../../src/llm/model-failure.js';
import { deferred } from '../helpers/deferred.js';
import { collectParts, fakeKey, lastPart, makeRequest } from './stream-helpers.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 4, text: 4, reasoning: undefined },
};
const finish = (unified: 'stop' | 'length') =>
  ({ type: 'finish', finishReason: { unified, raw: unified }, usage }) as const;
const finishWithoutReason = {
  type: 'finish',
  finishReason: { unified: 'other', raw: undefined },
  usage,
} as const;

function fakeModel(
  parts: LanguageModelV3StreamPart[] | (() => ReadableStream<LanguageModelV3StreamPart>),
  seen: LanguageModelV3CallOptions[] = [],
): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'fake',
    modelId: 'fake-model',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: async (options) => {
      seen.push(options);
      const stream =
        typeof parts === 'function'
          ? parts()
          : new ReadableStream<LanguageModelV3StreamPart>({
              start(controller) {
                for (const part of parts) controller.enqueue(part);
                controller.close();
              },
            });
      return { stream };
    },
  };
}

const clientOf = (model: () => LanguageModelV3) =>
  new AiSdkModelClient({ id: 'fake:fake-model', createModel: model, secrets: () => [fakeKey] });

describe('AiSdkModelClient request mapping', () => {
  test('messages, tools and settings become V3 call options', async () => {
    const seen: LanguageModelV3CallOptions[] = [];
    const request = makeRequest({
      toolChoice: { tool: 'read_file' },
      maxOutputTokens: 100,
      temperature: 0,
      messages: [
        { role: 'user', content: 'look' },
        {
          role: 'assistant',
          text: 'Reading both.',
          reasoning: 'need two files',
          toolCalls: [
            { id: 'a', name: 'read_file', arguments: { path: 'a' } },
            { id: 'b', name: 'read_file', arguments: 'not json' },
          ],
        },
        { role: 'tool', callId: 'a', toolName: 'read_file', content: 'A', isError: false },
        { role: 'tool', callId: 'b', toolName: 'read_file', content: 'denied', isError: true },
        { role: 'assistant', text: '', toolCalls: [] },
      ],
    });
    await collectParts(clientOf(() => fakeModel([finish('stop')], seen)).stream(request));
    const options = seen[0];
    assert.ok(options);
    assert.equal(options.abortSignal, request.signal);
    assert.equal(options.maxOutputTokens, 100);
    assert.equal(options.temperature, 0);
    assert.deepEqual(options.toolChoice, { type: 'tool', toolName: 'read_file' });
    assert.deepEqual(options.tools, [
      {
        type: 'function',
        name: 'read_file',
        description: 'Read a text file from the workspace.',
        inputSchema: request.tools[0]?.parameters,
      },
    ]);
    assert.deepEqual(options.prompt, [
      { role: 'system', content: 'You are a careful coding agent.' },
      { role: 'user', content: [{ type: 'text', text: 'look' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'need two files' },
          { type: 'text', text: 'Reading both.' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'read_file', input: { path: 'a' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'read_file', input: 'not json' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'read_file',
            output: { type: 'text', value: 'A' },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'read_file',
            output: { type: 'error-text', value: 'denied' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: '' }] },
    ]);
  });

  test('no tools means no tools field; a toolChoice naming a missing tool is an error part', async () => {
    const seen: LanguageModelV3CallOptions[] = [];
    await collectParts(
      clientOf(() => fakeModel([finish('stop')], seen)).stream(
        makeRequest({ tools: [], system: '' }),
      ),
    );
    assert.equal(seen[0]?.tools, undefined);
    assert.equal(seen[0]?.prompt[0]?.role, 'user');

    const parts = await collectParts(
      clientOf(() => fakeModel([finish('stop')])).stream(
        makeRequest({ toolChoice: { tool: 'nope' } }),
      ),
    );
    assert.equal(parts.length, 1);
    assert.match(parts[0]?.type === 'error' ? parts[0].error.message : '', /"nope"/);
  });
});

describe('AiSdkModelClient stream mapping', () => {
  test('deltas, tool calls, finish reasons and usage map to our parts', async () => {
    const parts = await collectParts(
      clientOf(() =>
        fakeModel([
          { type: 'stream-start', warnings: [] },
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
          { type: 'text-delta', id: 't', delta: '' },
          { type: 'text-delta', id: 't', delta: 'hi' },
          { type: 'tool-call', toolCallId: '1', toolName: 'ls', input: '' },
          { type: 'tool-call', toolCallId: '2', toolName: 'ls', input: '{"a":' },
          finish('length'),
        ]),
      ).stream(makeRequest()),
    );
    assert.deepEqual(parts, [
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'hi' },
      { type: 'tool-call', call: { id: '1', name: 'ls', arguments: {} } },
      { type: 'tool-call', call: { id: '2', name: 'ls', arguments: '{"a":' } },
      { type: 'finish', reason: 'length', usage: { input: 10, output: 4 } },
    ]);
  });

  test('usage reads V3 token groups and tolerates numbers or nothing', () => {
    assert.deepEqual(
      toUsage({
        inputTokens: { total: 100, noCache: 40, cacheRead: 60, cacheWrite: 0 },
        outputTokens: { total: 30, text: 10, reasoning: 20 },
      }),
      { input: 100, output: 30, reasoning: 20, cachedInput: 60 },
    );
    assert.deepEqual(
      toUsage({
        inputTokens: { total: 100, noCache: 10, cacheRead: 60, cacheWrite: 30 },
        outputTokens: { total: 5, text: 5, reasoning: undefined },
      }),
      { input: 100, output: 5, cachedInput: 60, cacheWrite: 30 },
    );
    assert.deepEqual(toUsage({ inputTokens: 7, outputTokens: 3 } as never), {
      input: 7,
      output: 3,
    });
    assert.deepEqual(toUsage(undefined), { input: 0, output: 0 });
  });

  test('an error part after content ends the stream with exactly one error part', async () => {
    const parts = await collectParts(
      clientOf(() =>
        fakeModel([
          { type: 'text-delta', id: 't', delta: 'partial' },
          { type: 'error', error: { type: 'overloaded_error', message: `overloaded ${fakeKey}` } },
          { type: 'text-delta', id: 't', delta: 'ignored' },
          finish('stop'),
        ]),
      ).stream(makeRequest()),
    );
    assert.deepEqual(parts, [
      { type: 'text', text: 'partial' },
      {
        type: 'error',
        error: {
          message: 'the provider reported an error: overloaded [redacted]',
          retryable: true,
        },
      },
    ]);
  });

  test('a thrown APICallError keeps status, Retry-After and a redacted message', async () => {
    const thrown = new APICallError({
      message: `quota exceeded for ${fakeKey}`,
      url: 'http://127.0.0.1/chat/completions',
      requestBodyValues: {},
      statusCode: 503,
      responseHeaders: { 'retry-after': '7' },
    });
    const model = fakeModel([]);
    model.doStream = () => Promise.reject(thrown);
    const parts = await collectParts(clientOf(() => model).stream(makeRequest()));
    assert.deepEqual(parts, [
      {
        type: 'error',
        error: {
          message: 'HTTP 503: quota exceeded for [redacted]',
          status: 503,
          retryable: true,
          retryAfterMs: 7000,
        },
      },
    ]);
  });

  test('a throwing factory and a stream without finish become error parts', async () => {
    const missing = await collectParts(
      clientOf(() => {
        throw new LoomError('MISSING_CREDENTIAL', 'FAKE_KEY is not set');
      }).stream(makeRequest()),
    );
    assert.deepEqual(missing, [
      { type: 'error', error: { message: 'FAKE_KEY is not set', retryable: false } },
    ]);
    const unfinished = await collectParts(
      clientOf(() => fakeModel([{ type: 'text-delta', id: 't', delta: 'a' }])).stream(
        makeRequest(),
      ),
    );
    assert.equal(lastPart(unfinished)?.type, 'error');
    const noReason = await collectParts(
      clientOf(() => fakeModel([finishWithoutReason])).stream(makeRequest()),
    );
    assert.equal(lastPart(noReason)?.type, 'error');
  });

  test('an abort ends a silent stream at once; an aborted request never calls the factory', async () => {
    const controller = new AbortController();
    const opened = deferred();
    const silent = () =>
      new ReadableStream<LanguageModelV3StreamPart>({
        start() {
          opened.resolve();
        },
      });
    const pending = collectParts(
      clientOf(() => fakeModel(silent)).stream(makeRequest({ signal: controller.signal })),
    );
    await opened.promise;
    controller.abort();
    assert.deepEqual(await pending, [
      {
        type: 'error',
        error: { message: 'the request was aborted', retryable: false, aborted: true },
      },
    ]);
    let called = false;
    const parts = await collectParts(
      clientOf(() => {
        called = true;
        return fakeModel([finish('stop')]);
      }).stream(makeRequest({ signal: controller.signal })),
    );
    assert.equal(called, false);
    assert.equal(parts.length, 1);
    assert.equal(parts[0]?.type === 'error' && parts[0].error.aborted, true);
  });
});

describe('parseRetryAfter', () => {
  test('reads seconds, HTTP dates and retry-after-ms', () => {
    const now = Date.parse('2025-11-30T00:00:00Z');
    assert.equal(parseRetryAfter({ 'retry-after': '2' }, now), 2000);
    assert.equal(parseRetryAfter({ 'Retry-After': 'Sun, 30 Nov 2025 00:00:03 GMT' }, now), 3000);
    assert.equal(parseRetryAfter({ 'retry-after': 'Sat, 29 Nov 2025 00:00:00 GMT' }, now), 0);
    assert.equal(parseRetryAfter({ 'retry-after-ms': '150', 'retry-after': '9' }, now), 150);
    assert.equal(parseRetryAfter({ 'retry-after': 'soon' }, now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
});
