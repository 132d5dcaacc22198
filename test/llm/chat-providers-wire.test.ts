/**
 * OpenAI chat completions, Anthropic messages and OpenAI-compatible servers over the wire:
 * recorded streams served from a loopback server through `createModelClient`. Checks both the
 * parts we yield and the request each provider sent. No test may reach the network.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createModelClient } from '../../src/llm/providers.js';
import { readFixture, sentBody, splitIntoPieces, withReplayServer } from './replay-server.js';
import { collectParts, fakeKey, joinedText, lastPart, makeRequest } from './stream-helpers.js';

const server = withReplayServer();

const calls = (parts: Awaited<ReturnType<typeof collectParts>>) =>
  parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : []));

describe('openai chat completions wire', () => {
  const client = () =>
    createModelClient('proxy-openai:gpt-4.1-mini', {
      routes: { 'proxy-openai': { provider: 'openai', baseURL: `${server.url}/v1` } },
      env: { OPENAI_API_KEY: fakeKey },
      retry: false,
    });

  test('text deltas and the usage-only chunk map to text and finish', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('openai-chat-text.sse'), 6) });
    const parts = await collectParts(
      client().stream(makeRequest({ maxOutputTokens: 256, temperature: 0.2 })),
    );
    assert.equal(joinedText(parts), 'Three files changed.');
    assert.deepEqual(lastPart(parts), {
      type: 'finish',
      reason: 'stop',
      usage: { input: 1830, output: 5, cachedInput: 1536 },
    });
    const sent = server.requests[before];
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.equal(sent?.headers.authorization, `Bearer ${fakeKey}`);
    const body = sentBody(server, before);
    assert.equal(body.model, 'gpt-4.1-mini');
    assert.equal(body.max_tokens, 256);
    assert.equal(body.temperature, 0.2);
    assert.deepEqual(body.stream_options, { include_usage: true });
  });

  test('parallel tool calls arrive as two calls with parsed arguments', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('openai-chat-tool-calls.sse'), 8) });
    const parts = await collectParts(
      client().stream(
        makeRequest({
          toolChoice: 'required',
          messages: [
            { role: 'user', content: 'What changed?' },
            {
              role: 'assistant',
              text: 'Checking.',
              toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.ts' } }],
            },
            {
              role: 'tool',
              callId: 'call_1',
              toolName: 'read_file',
              content: 'no such file',
              isError: true,
            },
          ],
        }),
      ),
    );
    assert.deepEqual(calls(parts), [
      { id: 'call_Qm3nB8vK2xTzL9wE5rYc1aHs', name: 'glob', arguments: { pattern: '**/*.ts' } },
      {
        id: 'call_Vb7pD1sF4gHj6kL0zXc2nM9q',
        name: 'bash',
        arguments: { command: 'git status --short' },
      },
    ]);
    assert.deepEqual(lastPart(parts), {
      type: 'finish',
      reason: 'tool-calls',
      usage: { input: 950, output: 48 },
    });
    const body = sentBody<{ messages: unknown[]; tool_choice: unknown }>(server, before);
    assert.equal(body.tool_choice, 'required');
    assert.deepEqual(body.messages.slice(2), [
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'no such file' },
    ]);
  });
});

describe('anthropic messages wire', () => {
  test('text and a tool_use block map to text, one call and finish', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('anthropic-text-tool-use.sse'), 9) });
    const client = createModelClient('claude-proxy:claude-sonnet-4-5', {
      routes: { 'claude-proxy': { provider: 'anthropic', baseURL: `${server.url}/v1` } },
      env: { ANTHROPIC_API_KEY: fakeKey },
      retry: false,
    });
    const parts = await collectParts(
      client.stream(makeRequest({ toolChoice: { tool: 'read_file' } })),
    );

    assert.equal(joinedText(parts), "I'll list the tests first.");
    assert.deepEqual(calls(parts), [
      {
        id: 'toolu_01A9sKx4Vd7mQe2Ry6Tb3NcW',
        name: 'glob',
        arguments: { pattern: 'test/**/*.test.ts' },
      },
    ]);
    assert.deepEqual(lastPart(parts), {
      type: 'finish',
      reason: 'tool-calls',
      usage: { input: 2100, output: 71, cachedInput: 2048 },
    });

    const sent = server.requests[before];
    assert.equal(sent?.path, '/v1/messages');
    assert.equal(sent?.headers['x-api-key'], fakeKey);
    const body = sentBody(server, before);
    assert.equal(body.model, 'claude-sonnet-4-5');
    assert.equal(body.stream, true);
    assert.deepEqual(body.system, [
      {
        type: 'text',
        text: 'You are a careful coding agent.',
        cache_control: { type: 'ephemeral' },
      },
    ]);
    assert.deepEqual(body.tool_choice, { type: 'tool', name: 'read_file' });
    const tools = body.tools as Array<Record<string, unknown>>;
    assert.equal(tools[0]?.name, 'read_file');
    assert.deepEqual(tools[0]?.input_schema, makeRequest().tools[0]?.parameters);
  });

  test('cache breakpoints mark the system prompt, the last tool and the latest two messages: four, no more', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('anthropic-text-tool-use.sse'), 9) });
    const client = createModelClient('claude-proxy:claude-sonnet-4-5', {
      routes: { 'claude-proxy': { provider: 'anthropic', baseURL: `${server.url}/v1` } },
      env: { ANTHROPIC_API_KEY: fakeKey },
      retry: false,
    });
    const request = makeRequest({
      messages: [
        { role: 'user', content: 'What changed?' },
        {
          role: 'assistant',
          text: 'Checking.',
          toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.ts' } }],
        },
        {
          role: 'tool',
          callId: 'call_1',
          toolName: 'read_file',
          content: 'export {}',
          isError: false,
        },
        { role: 'assistant', text: 'It is empty.', toolCalls: [] },
        { role: 'user', content: 'And b.ts?' },
      ],
    });
    await collectParts(client.stream(request));
    const body = sentBody(server, before);
    const marked = JSON.stringify(body).match(/"cache_control"/g) ?? [];
    assert.equal(marked.length, 4);
    const ephemeral = { type: 'ephemeral' };
    const system = body.system as Array<Record<string, unknown>>;
    assert.deepEqual(system.at(-1)?.cache_control, ephemeral);
    const tools = body.tools as Array<Record<string, unknown>>;
    assert.deepEqual(tools.at(-1)?.cache_control, ephemeral);
    const messages = body.messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    assert.deepEqual(messages.at(-1)?.content.at(-1)?.cache_control, ephemeral);
    assert.deepEqual(messages.at(-2)?.content.at(-1)?.cache_control, ephemeral);
    assert.equal(messages.at(-3)?.content.at(-1)?.cache_control, undefined);
  });
});

describe('openai-compatible wire', () => {
  test('MODEL@BASE_URL reaches the server without a key and keeps colons in the model', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: [readFixture('openai-chat-text.sse')] });
    const spec = `openai-compatible:llama3.1:8b@${server.url}/v1`;
    const client = createModelClient(spec, { env: {}, retry: false });
    assert.equal(client.id, spec);
    const parts = await collectParts(client.stream(makeRequest()));
    assert.equal(joinedText(parts), 'Three files changed.');
    assert.equal(lastPart(parts)?.type, 'finish');
    const sent = server.requests[before];
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.equal(sent?.headers.authorization, undefined);
    assert.equal(sentBody(server, before).model, 'llama3.1:8b');
  });

  test('a route that names a key variable sends that key and requires it', async () => {
    const routes = {
      vllm: {
        provider: 'openai-compatible' as const,
        baseURL: `${server.url}/v1`,
        apiKeyEnv: 'VLLM_KEY',
      },
    };
    const missing = await collectParts(
      createModelClient('vllm:qwen3', { routes, env: {} }).stream(makeRequest()),
    );
    assert.deepEqual(missing, [
      {
        type: 'error',
        error: {
          message: 'VLLM_KEY is not set; export it or choose another model with --model',
          retryable: false,
        },
      },
    ]);
    const before = server.requests.length;
    server.enqueue({ chunks: [readFixture('openai-chat-text.sse')] });
    await collectParts(
      createModelClient('vllm:qwen3', { routes, env: { VLLM_KEY: fakeKey } }).stream(makeRequest()),
    );
    assert.equal(server.requests[before]?.headers.authorization, `Bearer ${fakeKey}`);
  });

  test('a stream without a finish reason is an error part', async () => {
    server.enqueue({ chunks: [readFixture('deepseek-truncated.sse')] });
    const client = createModelClient(`openai-compatible:local@${server.url}/v1`, { retry: false });
    const parts = await collectParts(client.stream(makeRequest()));
    assert.equal(joinedText(parts), 'Let me think about');
    assert.equal(lastPart(parts)?.type, 'error');
    assert.equal(parts.filter((part) => part.type === 'error').length, 1);
  });
});
