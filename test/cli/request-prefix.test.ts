/**
 * Prompt caching depends on byte-stable prefixes: from one step to the next, a request repeats
 * the previous one's system prompt, tools and messages byte for byte and only adds at the end, so
 * a provider's automatic prefix cache (DeepSeek, OpenAI) hits. Driven through `bin/loom run` on a
 * loopback OpenAI-compatible server that records each request body as it arrived.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ChatAnswer, startRecordingChatServer } from '../helpers/recording-chat-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';

const STEPS = 20;

test('over a 20-step turn every request is a byte-extension of the one before it', async (t) => {
  const home = temporaryFolder('loom-prefix-home-');
  const workspace = temporaryFolder('loom-prefix-work-');
  for (let index = 0; index < STEPS; index += 1) {
    writeFileSync(join(workspace, `note-${index}.txt`), `note ${index}\n`.repeat(40));
  }
  const answers: ChatAnswer[] = [
    ...Array.from({ length: STEPS }, (_, index) => ({
      calls: [{ name: 'read_file', arguments: { path: `note-${index}.txt` } }],
    })),
    { text: 'read them all' },
  ];
  const server = await startRecordingChatServer(answers);
  t.after(() => server.close());
  const result = await runLoom(
    ['run', 'read every note', '--model', `openai-compatible:m@${server.baseURL}`],
    { home, cwd: workspace },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'read them all');
  assert.equal(server.bodies.length, STEPS + 1);
  const requests = server.bodies.map(
    (body) =>
      JSON.parse(body) as { messages: unknown[]; tools: unknown[] } & Record<string, unknown>,
  );
  for (let index = 1; index < requests.length; index += 1) {
    const previous = requests[index - 1] as (typeof requests)[number];
    const current = requests[index] as (typeof requests)[number];
    const { messages: previousMessages, ...previousRest } = previous;
    const { messages: currentMessages, ...currentRest } = current;
    assert.equal(
      JSON.stringify(currentRest),
      JSON.stringify(previousRest),
      `request ${index + 1}: everything but the messages repeats`,
    );
    assert.ok(
      currentMessages.length > previousMessages.length,
      `request ${index + 1} adds messages`,
    );
    assert.equal(
      JSON.stringify(currentMessages.slice(0, previousMessages.length)),
      JSON.stringify(previousMessages),
      `request ${index + 1} repeats the messages of request ${index} byte for byte`,
    );
  }
  const first = server.bodies[0] as string;
  const last = server.bodies.at(-1) as string;
  assert.ok(
    last.length - first.length > STEPS * 300,
    'the turn grew the request by every note it read',
  );
});
