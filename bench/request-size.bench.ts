/**
 * The size of the first request of `bin/loom run "hi"` in an empty workspace with default config
 * (issue 36: at most 12 KB). The target row is the JSON of the request's `system`, `tools` and
 * `messages` exactly as the model seam was handed them, rebuilt from the session log (the same
 * text the request-rebuild test compares byte for byte). The other rows are the HTTP bodies the
 * AI SDK serializes for the OpenAI-compatible and Anthropic routes, caught by a loopback server
 * that answers at once. Measures the built `bin/loom`; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { deriveMessages as DeriveMessages } from '../src/core/messages.js';
import type { requestPromptOf as RequestPromptOf } from '../src/core/request-prompt.js';
import type { SessionEvent } from '../src/core/session-events.js';
import { importBuilt } from './built.js';
import type { BenchRow } from './run.js';

const LOOM = fileURLToPath(new URL('../bin/loom', import.meta.url));
const TARGET_BYTES = 12 * 1024;

/** Runs `bin/loom run ... "hi"` in a new empty workspace and home; resolves to the home folder. */
function runLoom(model: string, config?: string): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-size-home-'));
  const workspace = mkdtempSync(join(tmpdir(), 'loom-bench-size-workspace-'));
  if (config !== undefined) writeFileSync(join(home, 'config.yaml'), config);
  return new Promise((resolve, reject) => {
    const child = spawn(LOOM, ['run', '--model', model, '--cwd', workspace, 'hi'], {
      env: { ...process.env, LOOM_HOME: home, BENCH_FAKE_KEY: 'not-a-key' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(workspace, { recursive: true, force: true });
      if (code === 0) resolve(home);
      else reject(new Error(`bin/loom run --model ${model} exited ${code}: ${stderr}`));
    });
  });
}

/** The JSON of the first request's system, tools and messages, rebuilt from the session log. */
async function firstRequestJson(home: string): Promise<string> {
  const { requestPromptOf } = await importBuilt<{ requestPromptOf: typeof RequestPromptOf }>(
    'core/request-prompt.js',
  );
  const { deriveMessages } = await importBuilt<{ deriveMessages: typeof DeriveMessages }>(
    'core/messages.js',
  );
  const folder = join(home, 'sessions');
  const [file] = readdirSync(folder).filter((name) => name.endsWith('.jsonl'));
  if (file === undefined) throw new Error(`no session file in ${folder}`);
  const events = readFileSync(join(folder, file), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as SessionEvent);
  const index = events.findIndex((event) => event.type === 'request/header');
  const header = events[index]?.data as SessionEvent<'request/header'>['data'] | undefined;
  if (header === undefined) throw new Error(`${file} holds no request/header`);
  const { system, tools } = requestPromptOf(events, header, folder);
  const messages = deriveMessages(events.slice(0, index + 1));
  return JSON.stringify({ system, tools, messages });
}

const openAiAnswer = `${[
  { choices: [{ index: 0, delta: { role: 'assistant', content: 'hello' }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  { choices: [], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } },
]
  .map(
    (chunk) =>
      `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: 'bench', ...chunk })}\n\n`,
  )
  .join('')}data: [DONE]\n\n`;

const anthropicEvent = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const anthropicAnswer = [
  anthropicEvent('message_start', {
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'bench',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  }),
  anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hello' } }),
  anthropicEvent('content_block_stop', { index: 0 }),
  anthropicEvent('message_delta', {
    delta: { stop_reason: 'end_turn' },
    usage: { output_tokens: 1 },
  }),
  anthropicEvent('message_stop', {}),
].join('');

/** A loopback server that keeps the byte length of the first body it is sent and answers at once. */
function recordingServer(): Promise<{ server: Server; port: number; firstBody: () => number }> {
  let first: number | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      first ??= Buffer.concat(chunks).length;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(request.url?.endsWith('/messages') ? anthropicAnswer : openAiAnswer);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        port,
        firstBody: () => {
          if (first === undefined) throw new Error('the loopback server got no request');
          return first;
        },
      });
    });
  });
}

export default async function requestSize(): Promise<BenchRow[]> {
  const scriptedFolder = mkdtempSync(join(tmpdir(), 'loom-bench-size-model-'));
  const scripted = join(scriptedFolder, 'model.json');
  writeFileSync(scripted, JSON.stringify({ default: { reply: 'hello' } }));
  const home = await runLoom(`scripted:${scripted}`);
  const request = Buffer.byteLength(await firstRequestJson(home), 'utf8');
  rmSync(home, { recursive: true, force: true });
  rmSync(scriptedFolder, { recursive: true, force: true });
  const rows: BenchRow[] = [
    {
      name: 'first request of `loom run "hi"` (system+tools+messages JSON)',
      value: request,
      unit: 'bytes',
      target: `<= ${TARGET_BYTES} (12 KB)`,
      ok: request <= TARGET_BYTES,
    },
  ];
  const { server, port, firstBody } = await recordingServer();
  try {
    const base = `http://127.0.0.1:${port}/v1`;
    const compatibleHome = await runLoom(`openai-compatible:bench@${base}`);
    rows.push({
      name: 'its body on the OpenAI-compatible route',
      value: firstBody(),
      unit: 'bytes',
    });
    rmSync(compatibleHome, { recursive: true, force: true });
  } finally {
    server.close();
  }
  const anthropic = await recordingServer();
  try {
    const route = `models:\n  fake:\n    provider: anthropic\n    baseURL: http://127.0.0.1:${anthropic.port}/v1\n    apiKeyEnv: BENCH_FAKE_KEY\n`;
    const anthropicHome = await runLoom('fake:bench', route);
    rows.push({
      name: 'its body on the Anthropic route',
      value: anthropic.firstBody(),
      unit: 'bytes',
    });
    rmSync(anthropicHome, { recursive: true, force: true });
  } finally {
    anthropic.server.close();
  }
  return rows;
}
