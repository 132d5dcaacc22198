/**
 * A prompt through a real provider's route, as a user runs it: bin/loom against loopback stand-ins
 * of an OpenAI-compatible server and of the Anthropic messages API, with a tool call in between.
 * The answer arrives, and Node's undici (its fetch and Headers, about 75 ms of such a run) is never
 * loaded: the providers send through Loom's node:http fetch, and the bundle gives the AI SDK
 * Loom's Headers (issue 36). A preload reports, at exit, whether undici was loaded.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type RecordingChatServer,
  startRecordingChatServer,
} from '../helpers/recording-chat-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';

const anthropicEvent = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Anthropic's stream of one text answer. */
function anthropicAnswer(text: string): string {
  return [
    anthropicEvent('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    anthropicEvent('content_block_stop', { index: 0 }),
    anthropicEvent('message_delta', {
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 2 },
    }),
    anthropicEvent('message_stop', {}),
  ].join('');
}

let chat: RecordingChatServer;
const anthropicRequests: Array<{ path: string; key: string | undefined; body: string }> = [];
const anthropic = createServer(async (request, response) => {
  let body = '';
  for await (const piece of request) body += String(piece);
  anthropicRequests.push({
    path: request.url ?? '',
    key: request.headers['x-api-key'] as string,
    body,
  });
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(anthropicAnswer('claude says hi'));
});

before(async () => {
  chat = await startRecordingChatServer([
    { calls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] },
    { text: 'found notes.txt' },
  ]);
  await new Promise<void>((resolve) => anthropic.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  await chat.close();
  await new Promise((resolve) => anthropic.close(resolve));
});

/** A LOOM_HOME, a workspace with one file, and the preload that reports undici at exit. */
function folders(): { home: string; workspace: string; env: NodeJS.ProcessEnv; report: string } {
  const home = temporaryFolder('loom-provider-home-');
  const workspace = temporaryFolder('loom-provider-work-');
  writeFileSync(join(workspace, 'notes.txt'), 'notes\n');
  const report = join(home, 'undici.txt');
  const preload = join(home, 'report-undici.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, String(process.moduleLoadList.some((name) => name.includes('undici')))));\n`,
  );
  return { home, workspace, env: { NODE_OPTIONS: `--require ${JSON.stringify(preload)}` }, report };
}

test('an OpenAI-compatible route answers through a tool call without loading undici', async () => {
  const { home, workspace, env, report } = folders();
  const result = await runLoom(
    ['run', '--model', `openai-compatible:local-model@${chat.baseURL}`, 'which notes?'],
    { home, cwd: workspace, env },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'found notes.txt');
  assert.equal(chat.bodies.length, 2);
  const second = JSON.parse(chat.bodies[1] as string) as {
    messages: Array<{ role: string; content: unknown }>;
  };
  const toolMessage = second.messages.find((message) => message.role === 'tool');
  assert.match(String(toolMessage?.content), /notes\.txt/);
  assert.equal(readFileSync(report, 'utf8'), 'false');
});

test('an Anthropic route with its base URL on loopback answers without loading undici', async () => {
  const { home, workspace, env, report } = folders();
  const { port } = anthropic.address() as AddressInfo;
  writeFileSync(
    join(home, 'config.yaml'),
    `models:\n  local:\n    provider: anthropic\n    baseURL: http://127.0.0.1:${port}/v1\n    apiKeyEnv: LOCAL_ANTHROPIC_KEY\n`,
  );
  const result = await runLoom(['run', '--model', 'local:claude-test', 'hello'], {
    home,
    cwd: workspace,
    env: { ...env, LOCAL_ANTHROPIC_KEY: 'sk-ant-test-key' },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'claude says hi');
  assert.equal(anthropicRequests.at(-1)?.path, '/v1/messages');
  assert.equal(anthropicRequests.at(-1)?.key, 'sk-ant-test-key');
  assert.match(anthropicRequests.at(-1)?.body ?? '', /"stream":true/);
  assert.equal(readFileSync(report, 'utf8'), 'false');
});
