/**
 * DeepSeek over the wire: recorded chat-completion streams served from a loopback server through
 * `createModelClient`, covering split tool arguments, reasoning in both directions, truncated
 * streams, aborts and a missing key. No test may reach the network.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ModelStreamPart } from '../../src/llm/contract.js';
import { createModelClient } from '../../src/llm/providers.js';
import { readFixture, sentBody, splitIntoPieces, withReplayServer } from './replay-server.js';
import {
  collectParts,
  fakeKey,
  joinedText,
  lastPart,
  localDeepseekOptions,
  makeRequest,
} from './stream-helpers.js';

const server = withReplayServer();

function deepseekClient(model = 'deepseek-chat', retry: false | undefined = false) {
  return createModelClient(`local-deepseek:${model}`, localDeepseekOptions(server.url, { retry }));
}

describe('deepseek wire', () => {
  test('tool-call arguments split over SSE events and mid-JSON writes assemble into one call', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('deepseek-tool-call.sse'), 11) });
    const parts = await collectParts(deepseekClient().stream(makeRequest({ toolChoice: 'auto' })));

    const calls = parts.filter((part) => part.type === 'tool-call');
    assert.deepEqual(calls, [
      {
        type: 'tool-call',
        call: {
          id: 'call_0_7f3a9c1d-2b4e-4c8a-9e61-5d0f8b2a3c47',
          name: 'read_file',
          arguments: { path: 'src/index.ts', limit: 40 },
        },
      },
    ]);
    assert.deepEqual(lastPart(parts), {
      type: 'finish',
      reason: 'tool-calls',
      usage: { input: 412, output: 27, cachedInput: 384 },
    });

    const sent = server.requests[before];
    assert.equal(sent?.path, '/chat/completions');
    assert.equal(sent?.headers.authorization, `Bearer ${fakeKey}`);
    const body = sentBody(server, before);
    assert.equal(body.model, 'deepseek-chat');
    assert.equal(body.stream, true);
    assert.equal(body.tool_choice, 'auto');
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'You are a careful coding agent.' },
      { role: 'user', content: 'How many lines does README.md have?' },
    ]);
    assert.deepEqual((body.tools as Array<Record<string, unknown>>)[0], {
      type: 'function',
      function: {
        name: 'read_file',
        description: 'Read a text file from the workspace.',
        parameters: makeRequest().tools[0]?.parameters,
      },
    });
  });

  test('reasoning_content streams as reasoning and goes back for the current turn', async () => {
    server.enqueue({ chunks: splitIntoPieces(readFixture('deepseek-reasoner-tool-call.sse'), 7) });
    const client = deepseekClient('deepseek-reasoner');
    const first = await collectParts(client.stream(makeRequest()));

    const reasoning = 'The user wants the line count of README.md. I should read the file first.';
    assert.equal(joinedText(first, 'reasoning'), reasoning);
    assert.ok(first.filter((part) => part.type === 'reasoning').length >= 4);
    const call = first.find((part) => part.type === 'tool-call');
    assert.ok(call?.type === 'tool-call');
    assert.deepEqual(call.call.arguments, { path: 'README.md' });
    assert.deepEqual(lastPart(first), {
      type: 'finish',
      reason: 'tool-calls',
      usage: { input: 305, output: 88, reasoning: 61 },
    });

    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('deepseek-reasoner-answer.sse'), 5) });
    const second = await collectParts(
      client.stream(
        makeRequest({
          messages: [
            { role: 'user', content: 'hello' },
            {
              role: 'assistant',
              text: 'Hi! What can I do?',
              reasoning: 'A greeting.',
              toolCalls: [],
            },
            { role: 'user', content: 'How many lines does README.md have?' },
            { role: 'assistant', text: '', reasoning, toolCalls: [call.call] },
            {
              role: 'tool',
              callId: call.call.id,
              toolName: 'read_file',
              content: '12 lines',
              isError: false,
            },
          ],
        }),
      ),
    );
    assert.equal(joinedText(second), 'README.md has 12 lines.');
    assert.equal(joinedText(second, 'reasoning'), 'The file has 12 lines.');
    assert.deepEqual(lastPart(second), {
      type: 'finish',
      reason: 'stop',
      usage: { input: 420, output: 19, reasoning: 8, cachedInput: 256 },
    });

    const { messages } = sentBody<{ messages: Array<Record<string, unknown>> }>(server, before);
    assert.equal(messages.length, 6);
    assert.equal(messages[2]?.role, 'assistant');
    assert.equal(messages[2]?.reasoning_content, undefined, 'reasoning before the last user turn');
    assert.deepEqual(messages[4], {
      role: 'assistant',
      content: '',
      reasoning_content: reasoning,
      tool_calls: [
        {
          id: call.call.id,
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"README.md"}' },
        },
      ],
    });
    assert.deepEqual(messages[5], {
      role: 'tool',
      tool_call_id: call.call.id,
      content: '12 lines',
    });
  });

  test('a stream that ends without a finish reason ends with an error part', async () => {
    server.enqueue({ chunks: [readFixture('deepseek-truncated.sse')] });
    const parts = await collectParts(deepseekClient().stream(makeRequest()));
    assert.equal(joinedText(parts), 'Let me think about');
    const last = lastPart(parts);
    assert.equal(last?.type, 'error');
    assert.match(last.type === 'error' ? last.error.message : '', /finish reason/);
    assert.equal(parts.filter((part) => part.type === 'error').length, 1);
  });

  test('a connection cut mid-stream ends with one error part and is not retried after content', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: [readFixture('deepseek-truncated.sse')], after: 'destroy' });
    const parts = await collectParts(
      deepseekClient('deepseek-chat', undefined).stream(makeRequest()),
    );
    assert.equal(joinedText(parts), 'Let me think about');
    const last = lastPart(parts);
    assert.ok(last?.type === 'error');
    assert.equal(last.error.aborted, undefined);
    assert.equal(
      parts.some((part) => part.type === 'attempt-failed'),
      false,
    );
    assert.equal(server.requests.length - before, 1);
  });

  test('aborting mid-stream ends with an aborted error part and never throws', async () => {
    const fixture = readFixture('deepseek-truncated.sse');
    server.enqueue({ chunks: [fixture], after: 'hang' });
    const controller = new AbortController();
    const parts: ModelStreamPart[] = [];
    const started = Date.now();
    for await (const part of deepseekClient().stream(makeRequest({ signal: controller.signal }))) {
      parts.push(part);
      if (part.type === 'text') controller.abort();
    }
    assert.ok(Date.now() - started < 5000);
    assert.equal(parts[0]?.type, 'text');
    assert.deepEqual(lastPart(parts), {
      type: 'error',
      error: { message: 'the request was aborted', retryable: false, aborted: true },
    });
  });

  test('a missing key is an error part naming the variable, and no request is sent', async () => {
    const before = server.requests.length;
    const client = createModelClient(
      'local-deepseek:deepseek-chat',
      localDeepseekOptions(server.url, { env: {} }),
    );
    const parts = await collectParts(client.stream(makeRequest()));
    assert.deepEqual(parts, [
      {
        type: 'error',
        error: {
          message: 'DEEPSEEK_API_KEY is not set; export it or choose another model with --model',
          retryable: false,
        },
      },
    ]);
    assert.equal(server.requests.length, before);
  });

  test('a route may name its own key variable', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: [readFixture('deepseek-tool-call.sse')] });
    const client = createModelClient('team', {
      routes: {
        team: {
          provider: 'deepseek',
          baseURL: server.url,
          apiKeyEnv: 'TEAM_DEEPSEEK_KEY',
          model: 'deepseek-chat',
        },
      },
      env: { TEAM_DEEPSEEK_KEY: fakeKey },
    });
    assert.equal(client.id, 'team:deepseek-chat');
    const parts = await collectParts(client.stream(makeRequest()));
    assert.equal(lastPart(parts)?.type, 'finish');
    assert.equal(server.requests[before]?.headers.authorization, `Bearer ${fakeKey}`);
  });
});
