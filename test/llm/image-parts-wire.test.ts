/**
 * Images on the wire: what OpenAI's chat API and Anthropic's messages API receive for a prompt
 * image and a tool result's image, through `createModelClient` against a loopback replay server.
 * Anthropic takes an image inside the tool result; OpenAI (whose tool messages are text only)
 * gets the tool result's text and the image in a user message right after the tool results.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ModelMessage } from '../../src/llm/contract.js';
import { createModelClient } from '../../src/llm/providers.js';
import { readFixture, sentBody, splitIntoPieces, withReplayServer } from './replay-server.js';
import { collectParts, fakeKey, makeRequest } from './stream-helpers.js';

const server = withReplayServer();

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const image = (blob: string) => ({
  type: 'image' as const,
  mediaType: 'image/png',
  blob: blob.repeat(64),
  bytes: 68,
  width: 1,
  height: 1,
  data: PIXEL,
});

const conversation: ModelMessage[] = [
  { role: 'user', content: 'What is in this picture?', images: [image('a')] },
  {
    role: 'assistant',
    text: '',
    toolCalls: [
      { id: 'call_1', name: 'read_file', arguments: { path: 'shot.png' } },
      { id: 'call_2', name: 'read_file', arguments: { path: 'notes.txt' } },
    ],
  },
  {
    role: 'tool',
    callId: 'call_1',
    toolName: 'read_file',
    content: 'Image shot.png (image/png, 1x1 pixels, 68 bytes)',
    isError: false,
    images: [image('b')],
  },
  { role: 'tool', callId: 'call_2', toolName: 'read_file', content: 'hello', isError: false },
];

type WireMessage = { role: string; content: unknown; tool_call_id?: string };

describe('images on the wire', () => {
  test('openai chat: the prompt image as an image_url part; the tool image in a user message after the tool results', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('openai-chat-text.sse'), 3) });
    const client = createModelClient('proxy-openai:gpt-4.1-mini', {
      routes: { 'proxy-openai': { provider: 'openai', baseURL: `${server.url}/v1` } },
      env: { OPENAI_API_KEY: fakeKey },
      retry: false,
    });
    await collectParts(client.stream(makeRequest({ messages: conversation })));
    const messages = sentBody(server, before).messages as WireMessage[];
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'tool', 'user'],
    );
    assert.deepEqual(messages[1]?.content, [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
    ]);
    assert.equal(messages[3]?.content, 'Image shot.png (image/png, 1x1 pixels, 68 bytes)');
    assert.equal(messages[4]?.content, 'hello');
    assert.deepEqual(messages[5]?.content, [
      { type: 'text', text: 'The image of the read_file result (call call_1):' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
    ]);
  });

  test('anthropic: image blocks in the user message and inside the tool_result', async () => {
    const before = server.requests.length;
    server.enqueue({ chunks: splitIntoPieces(readFixture('anthropic-text-tool-use.sse'), 4) });
    const client = createModelClient('claude-proxy:claude-sonnet-4-5', {
      routes: { 'claude-proxy': { provider: 'anthropic', baseURL: `${server.url}/v1` } },
      env: { ANTHROPIC_API_KEY: fakeKey },
      retry: false,
    });
    await collectParts(client.stream(makeRequest({ messages: conversation })));
    const messages = sentBody(server, before).messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    assert.deepEqual(
      messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    const source = { type: 'base64', media_type: 'image/png', data: PIXEL };
    assert.deepEqual(
      messages[0]?.content.map(({ cache_control: _cache, ...part }) => part),
      [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', source },
      ],
    );
    const results = messages[2]?.content ?? [];
    const { cache_control: _first, ...withImage } = results[0] ?? {};
    assert.deepEqual(withImage, {
      type: 'tool_result',
      tool_use_id: 'call_1',
      content: [
        { type: 'text', text: 'Image shot.png (image/png, 1x1 pixels, 68 bytes)' },
        { type: 'image', source },
      ],
    });
    assert.equal(results[1]?.tool_use_id, 'call_2');
    assert.equal(results.length, 2, 'no user message of images follows');
  });
});
