/**
 * A retried model request through a whole agent turn: the session log keeps the failed attempt
 * (`model/retry`) and the answer that followed (`assistant/message` with `attempts: 2`), and the
 * DeepSeek reasoning of the answer is logged and sent back on the next request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEvent } from '../../src/core/session-events.js';
import { createModelClient } from '../../src/llm/providers.js';
import { agentFixture } from '../core/agent-fixture.js';
import { readFixture, sentBody, sseEvents, withReplayServer } from './replay-server.js';
import { localDeepseekOptions } from './stream-helpers.js';

const server = withReplayServer();

const readFile = {
  name: 'read_file',
  description: 'Reads a file (a stand-in).',
  parameters: { type: 'object' },
  execute: () => 'export const answer = 42;',
};

test('a 429 then 200 retries once, and the log keeps both attempts', async () => {
  server.enqueue(
    {
      status: 429,
      headers: { 'retry-after': '0' },
      body: JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit' } }),
    },
    {
      chunks: [
        sseEvents([
          {
            id: 'a',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'deepseek-chat',
            choices: [
              {
                index: 0,
                delta: { role: 'assistant', content: 'hello there' },
                finish_reason: null,
              },
            ],
          },
          {
            id: 'a',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'deepseek-chat',
            choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
          },
        ]),
      ],
    },
  );
  const model = createModelClient('local-deepseek:deepseek-chat', localDeepseekOptions(server.url));
  const handle = agentFixture({ model });
  const outcome = await handle.agent.prompt('hi');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  const retries = handle.log.events.filter((event) => isEvent(event, 'model/retry'));
  assert.equal(retries.length, 1);
  const [retry] = retries;
  assert.ok(retry && isEvent(retry, 'model/retry'));
  assert.equal(retry.data.error.status, 429);
  const message = handle.log.events.find((event) => isEvent(event, 'assistant/message'));
  assert.ok(message && isEvent(message, 'assistant/message'));
  assert.equal(message.data.attempts, 2);
  assert.equal(message.data.text, 'hello there');
});

test('DeepSeek reasoning is logged and sent back on the next request of the turn', async () => {
  server.enqueue(
    { chunks: [readFixture('deepseek-reasoner-tool-call.sse')] },
    { chunks: [readFixture('deepseek-reasoner-answer.sse')] },
  );
  const before = server.requests.length;
  const model = createModelClient(
    'local-deepseek:deepseek-reasoner',
    localDeepseekOptions(server.url),
  );
  const handle = agentFixture({ model, tools: [readFile] });
  await handle.agent.prompt('think, then echo');
  handle.close();
  const first = handle.log.events.find((event) => isEvent(event, 'assistant/message'));
  assert.ok(first && isEvent(first, 'assistant/message'));
  const reasoning = first.data.reasoning;
  assert.ok(reasoning && reasoning.length > 0, 'the reasoning is in the log');
  const second = sentBody<{ messages: Array<{ role: string; reasoning_content?: string }> }>(
    server,
    before + 1,
  );
  const assistant = second.messages.find((message) => message.role === 'assistant');
  assert.equal(assistant?.reasoning_content, reasoning);
});
