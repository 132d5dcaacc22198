/**
 * `ModelRequest.effort` on each route, over the wire to a loopback server: what OpenAI,
 * Anthropic and DeepSeek are sent for each level, what a route without a reasoning control is
 * sent (nothing) and says (no control), and that Anthropic's signed thinking comes back with the
 * turn. No test may reach the network.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ModelClient } from '../../src/llm/contract.js';
import { createModelClient } from '../../src/llm/providers.js';
import { anthropicThinkingBudgets } from '../../src/llm/reasoning-effort.js';
import { readFixture, sentBody, withReplayServer } from './replay-server.js';
import { collectParts, fakeKey, lastPart, makeRequest } from './stream-helpers.js';

const server = withReplayServer();

function routed(provider: string, model: string, key: string): ModelClient {
  const baseURL = provider === 'deepseek' ? server.url : `${server.url}/v1`;
  return createModelClient(`proxy:${model}`, {
    routes: { proxy: { provider: provider as 'openai', baseURL } },
    env: { [key]: fakeKey },
    retry: false,
  });
}

/** The body the route sent for one request at `effort` (`undefined`: none asked). */
async function bodyFor(
  client: ModelClient,
  fixture: string,
  overrides: Parameters<typeof makeRequest>[0] = {},
): Promise<Record<string, unknown>> {
  const before = server.requests.length;
  server.enqueue({ chunks: [readFixture(fixture)] });
  const parts = await collectParts(client.stream(makeRequest(overrides)));
  assert.equal(lastPart(parts)?.type, 'finish', JSON.stringify(lastPart(parts)));
  return sentBody(server, before);
}

/** An Anthropic message stream: a signed thinking block, then text. */
function anthropicThinkingStream(): string {
  const events: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 20, output_tokens: 1 },
        },
      },
    ],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
    ],
    [
      'content_block_delta',
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Count.' },
      },
    ],
    [
      'content_block_delta',
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: 'sig-1' },
      },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'content_block_start',
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    ],
    [
      'content_block_delta',
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: '42 lines.' } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 9 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

describe('effort on OpenAI', () => {
  test('a reasoning model gets reasoning_effort; max is sent as high', async () => {
    const client = routed('openai', 'o4-mini', 'OPENAI_API_KEY');
    for (const [effort, sent] of [
      ['low', 'low'],
      ['medium', 'medium'],
      ['high', 'high'],
      ['max', 'high'],
    ] as const) {
      const body = await bodyFor(client, 'openai-chat-text.sse', { effort });
      assert.equal(body.reasoning_effort, sent, effort);
    }
    assert.equal(client.reasoningControl?.('max'), 'OpenAI reasoningEffort high');
    const plain = await bodyFor(client, 'openai-chat-text.sse');
    assert.equal('reasoning_effort' in plain, false, 'no effort asked: none sent');
  });

  test('a model that does not reason is sent none, and says it has no control', async () => {
    const client = routed('openai', 'gpt-4.1-mini', 'OPENAI_API_KEY');
    const body = await bodyFor(client, 'openai-chat-text.sse', { effort: 'high' });
    assert.equal('reasoning_effort' in body, false);
    assert.equal(client.reasoningControl?.('high'), undefined);
  });
});

describe('effort on Anthropic', () => {
  test('thinking is enabled with a budget per level, added to max_tokens', async () => {
    const client = routed('anthropic', 'claude-sonnet-4-5', 'ANTHROPIC_API_KEY');
    for (const effort of ['low', 'medium', 'high', 'max'] as const) {
      server.enqueue({ chunks: [anthropicThinkingStream()] });
      const before = server.requests.length;
      await collectParts(client.stream(makeRequest({ effort, maxOutputTokens: 1000 })));
      const body = sentBody(server, before);
      const budget = anthropicThinkingBudgets[effort];
      assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: budget }, effort);
      assert.equal(body.max_tokens, 1000 + budget);
    }
    assert.equal(
      client.reasoningControl?.('high'),
      'Anthropic thinking with a budget of 16384 tokens',
    );
  });

  test('a request that forces a tool goes without thinking (Anthropic refuses both at once)', async () => {
    const client = routed('anthropic', 'claude-sonnet-4-5', 'ANTHROPIC_API_KEY');
    server.enqueue({ chunks: [readFixture('anthropic-text-tool-use.sse')] });
    const before = server.requests.length;
    await collectParts(client.stream(makeRequest({ effort: 'high', toolChoice: 'required' })));
    assert.equal('thinking' in sentBody(server, before), false);
  });

  test('the signed thinking is reported at the finish and sent back with the turn', async () => {
    const client = routed('anthropic', 'claude-sonnet-4-5', 'ANTHROPIC_API_KEY');
    server.enqueue({ chunks: [anthropicThinkingStream()] });
    const parts = await collectParts(client.stream(makeRequest({ effort: 'low' })));
    const finish = lastPart(parts);
    assert.equal(finish?.type === 'finish' && finish.reasoningSignature, 'sig-1');
    server.enqueue({ chunks: [anthropicThinkingStream()] });
    const before = server.requests.length;
    await collectParts(
      client.stream(
        makeRequest({
          effort: 'low',
          messages: [
            { role: 'user', content: 'How long is README.md?' },
            {
              role: 'assistant',
              text: '',
              reasoning: 'Count.',
              reasoningSignature: 'sig-1',
              toolCalls: [{ id: 't1', name: 'read_file', arguments: { path: 'README.md' } }],
            },
            { role: 'tool', callId: 't1', toolName: 'read_file', content: '42', isError: false },
          ],
        }),
      ),
    );
    const messages = sentBody(server, before).messages as Array<{ content: unknown[] }>;
    assert.deepEqual(messages[1]?.content[0], {
      type: 'thinking',
      thinking: 'Count.',
      signature: 'sig-1',
    });
  });

  test('Claude 3.5 has no thinking: it is sent none', async () => {
    const client = routed('anthropic', 'claude-3-5-haiku-latest', 'ANTHROPIC_API_KEY');
    server.enqueue({ chunks: [readFixture('anthropic-text-tool-use.sse')] });
    const before = server.requests.length;
    await collectParts(client.stream(makeRequest({ effort: 'high' })));
    assert.equal('thinking' in sentBody(server, before), false);
    assert.equal(client.reasoningControl?.('high'), undefined);
  });
});

describe('effort on DeepSeek and other routes', () => {
  test('deepseek-chat is switched to thinking mode (its reasoner), with no finer level', async () => {
    const client = routed('deepseek', 'deepseek-chat', 'DEEPSEEK_API_KEY');
    const body = await bodyFor(client, 'deepseek-reasoner-answer.sse', { effort: 'low' });
    assert.deepEqual(body.thinking, { type: 'enabled' });
    assert.equal('reasoning_effort' in body, false);
    assert.match(client.reasoningControl?.('low') ?? '', /DeepSeek thinking mode/);
  });

  test('a DeepSeek V4 model also gets reasoning_effort; medium is sent as high', async () => {
    const client = routed('deepseek', 'deepseek-v4-flash', 'DEEPSEEK_API_KEY');
    const body = await bodyFor(client, 'deepseek-reasoner-answer.sse', { effort: 'medium' });
    assert.deepEqual(body.thinking, { type: 'enabled' });
    assert.equal(body.reasoning_effort, 'high');
  });

  test('an OpenAI-compatible server has no control Loom knows: nothing is sent', async () => {
    const client = createModelClient(`openai-compatible:llama3@${server.url}/v1`, {
      retry: false,
    });
    const body = await bodyFor(client, 'openai-chat-text.sse', { effort: 'max' });
    assert.equal('reasoning_effort' in body, false);
    assert.equal('thinking' in body, false);
    assert.equal(client.reasoningControl?.('max'), undefined);
  });
});
