/**
 * Issue 35's acceptance against the official reference servers, through bin/loom with the
 * scripted model: the everything server over stdio, streamable HTTP and HTTP+SSE; every tool it
 * lists is listed by `loom mcp list` and called by the model (the roots tool lists the
 * workspace, the research tool runs as a task, the long operation reports progress); the
 * filesystem server started with no folders reads a workspace file through roots; an entry of
 * an unknown type fails alone. The HTTP servers start once for the file.
 *
 * EVERYTHING_CALLS holds one entry per tool the server lists to Loom: all 19 of them. The server
 * lists its sampling and elicitation tools (sync, as tasks, URL mode) only to a client that
 * declares those capabilities, so each is here because Loom declares it.
 */
import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { formatServers } from '../../src/cli/mcp-command.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import type { McpServerReport } from '../../src/mcp/contract.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { runLoom, runScripted, scriptedFolders, writeScriptedModel } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import {
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  type HttpServer,
  startEverythingServer,
} from './mcp-fixtures.js';

interface JsonEvent {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

interface ToolCase {
  arguments: Record<string, unknown>;
  /** What the model reads (`{{workspace}}` is the run's workspace URI). */
  content: RegExp | ((workspaceUri: string) => RegExp);
}

const NOTES_GZ = `data:text/plain;base64,${Buffer.from('notes to compress').toString('base64')}`;

/** Every tool the everything server lists to Loom, with a call and what its result must say. */
const EVERYTHING_CALLS: Record<string, ToolCase> = {
  echo: { arguments: { message: 'hello' }, content: /^Echo: hello$/ },
  'get-annotated-message': {
    arguments: { messageType: 'error', includeImage: true },
    content: /^Error: Operation failed\n\[image: image\/png, \d+ bytes\]$/,
  },
  'get-env': { arguments: {}, content: /"PATH": / },
  'get-resource-links': {
    arguments: { count: 2 },
    content:
      /\[resource link demo:\/\/resource\/dynamic\/blob\/1 \(Blob Resource 1\): text\/plain\]: Resource 1: plaintext resource\n\[resource link demo:\/\/resource\/dynamic\/text\/2 \(Text Resource 2\): text\/plain\]/,
  },
  'get-resource-reference': {
    arguments: { resourceType: 'Text', resourceId: 1 },
    content:
      /\[resource demo:\/\/resource\/dynamic\/text\/1: text\/plain, \d+ bytes\]\nResource 1: This is a plaintext resource/,
  },
  'get-structured-content': {
    arguments: { location: 'Chicago' },
    // The text already is the structured content's JSON: it is not repeated.
    content: /^\{"temperature":36,"conditions":"Light rain \/ drizzle","humidity":82\}$/,
  },
  'get-sum': { arguments: { a: 2, b: 3 }, content: /^The sum of 2 and 3 is 5\.$/ },
  'get-tiny-image': {
    arguments: {},
    content: /^Here's the image you requested:\n\[image: image\/png, \d+ bytes\]\nThe image above/,
  },
  'gzip-file-as-resource': {
    arguments: { name: 'notes.gz', data: NOTES_GZ, outputType: 'resource' },
    content: /^\[resource demo:\/\/resource\/session\/notes\.gz: application\/gzip, \d+ bytes\]$/,
  },
  'toggle-simulated-logging': { arguments: {}, content: /^Started simulated, random-leveled/ },
  'toggle-subscriber-updates': { arguments: {}, content: /^Started simulated resource updat/ },
  'trigger-long-running-operation': {
    arguments: { duration: 0.4, steps: 2 },
    content: /^Long running operation completed\. Duration: 0\.4 seconds, Steps: 2\.$/,
  },
  'get-roots-list': {
    arguments: {},
    content: (workspaceUri) =>
      new RegExp(`^Current MCP Roots \\(1 total\\):\\n\\n1\\. \\S+\\n   URI: ${workspaceUri}\\n`),
  },
  'simulate-research-query': {
    arguments: { topic: 'looms' },
    content: /^# Research Report: looms\n[\s\S]*Stage 4: Generating report ✓/,
  },
  // Sampling (`sampling: allow`) runs on the scripted model; SAMPLING_RULE answers it.
  'trigger-sampling-request': {
    arguments: { prompt: 'a line about looms', maxTokens: 50 },
    content:
      /^LLM sampling result: \n(?=[\s\S]*"model": "scripted:[^"]+")(?=[\s\S]*"stopReason": "endTurn")(?=[\s\S]*"role": "assistant")[\s\S]*"content": \{\n {4}"type": "text",\n {4}"text": "warp and weft"\n {2}\}/,
  },
  // The form is answered by ELICITATION_ANSWERS through --answers.
  'trigger-elicitation-request': {
    arguments: {},
    content:
      /^✅ User provided the requested information!\nUser inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Email: ada@example\.com\n- Homepage: https:\/\/example\.com\/ada\n- Birthdate: 1815-12-10\n- Favorite Integer: 42\n- Favorite Number: 2\.5\n[\s\S]*"untitledMultipleSelectEnum": \[\n\s*"Piano",\n\s*"Drums"\n\s*\],\n\s*"titledSingleSelectEnum": "hero-3",\n\s*"titledMultipleSelectEnum": \[\n\s*"fish-1"\n\s*\],\n\s*"legacyTitledEnum": "pet-2"/,
  },
  // Sent as a task: Loom answers with the task, runs the sampling and the server polls it.
  'trigger-sampling-request-async': {
    arguments: { prompt: 'a line about looms', maxTokens: 50 },
    content:
      /^\[COMPLETED\] Async sampling completed!\n\n\*\*Progress:\*\*\nTask created: \S+\n(Poll \d+: (working|completed)\n)*Poll \d+: completed\n\n\*\*Result:\*\*\n(?=[\s\S]*"model": "scripted:[^"]+")[\s\S]*"text": "warp and weft"/,
  },
  // The async form, as a task, answered by ELICITATION_ANSWERS too.
  'trigger-elicitation-request-async': {
    arguments: {},
    content:
      /^\[COMPLETED\] User provided the requested information!\nUser inputs:\n- Name: Ada Lovelace\n- Favorite Color: Blue\n- Agreed to terms: true\n\nProgress:\nTask created: \S+\n[\s\S]*"action": "accept"/,
  },
  // The URL is shown as a question; the answers file says `done` (no browser is opened).
  'trigger-url-elicitation': {
    arguments: { url: 'https://example.com/loom-sign-in', message: 'Sign in to the loom.' },
    content:
      /^✅ User completed the URL elicitation flow\.\nElicitation ID: \S+\nURL: https:\/\/example\.com\/loom-sign-in\n[\s\S]*"action": "accept"/,
  },
};

/** The scripted model's answer to the everything server's sampling request. */
const SAMPLING_RULE = {
  when: '^Resource trigger-sampling-request(-async)? context: a line about looms$',
  reply: 'warp and weft',
  usage: { input: 13, output: 4 },
};

/** The answers file of the runs: every field of the everything server's form, by its name. */
const ELICITATION_ANSWERS = {
  name: 'Ada Lovelace',
  check: 'yes',
  firstLine: 'It was a dark and stormy night.',
  email: 'ada@example.com',
  homepage: 'https://example.com/ada',
  birthdate: '1815-12-10',
  integer: '42',
  number: '2.5',
  untitledSingleSelectEnum: 'Joey',
  untitledMultipleSelectEnum: ['Piano', 'Drums'],
  titledSingleSelectEnum: 'Wonder Woman',
  titledMultipleSelectEnum: ['Tuna'],
  legacyTitledEnum: 'Dogs',
  favoriteColor: 'Blue',
  agreeToTerms: 'yes',
  URL: 'done',
};

function events(stdout: string): JsonEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonEvent);
}

let http: HttpServer;
let sse: HttpServer;
before(async () => {
  [http, sse] = await Promise.all([
    startEverythingServer('streamableHttp'),
    startEverythingServer('sse'),
  ]);
});
after(() => Promise.all([http.stop(), sse.stop()]));

/** Config: the everything server over stdio and the filesystem one; .mcp.json: HTTP, SSE, bad. */
function everythingFolders(model: unknown) {
  const folders = scriptedFolders(model);
  everythingFiles(folders);
  return folders;
}

function everythingFiles(folders: { home: string; workspace: string }): void {
  const node = JSON.stringify(process.execPath);
  writeFileSync(
    join(folders.home, 'config.yaml'),
    [
      'mcp:',
      '  servers:',
      `    every: { command: ${node}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio], sampling: allow }`,
      `    files: { command: ${node}, args: [${JSON.stringify(FILESYSTEM_SERVER)}] }`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(folders.workspace, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        web: { type: 'http', url: http.url, sampling: 'allow' },
        old: { type: 'sse', url: sse.url },
        odd: { type: 'websocket', url: 'ws://127.0.0.1:1/' },
      },
    }),
  );
  writeFileSync(join(folders.workspace, 'notes.txt'), 'read through roots\n');
}

test('loom mcp list: every server over each transport, the task tool marked, the bad entry failed alone', async () => {
  const folders = everythingFolders({ rules: [] });
  const listed = await runLoom(['mcp', 'list', '--json', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.equal(listed.code, 0, listed.stderr);
  const reports = listed.stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as {
          name: string;
          transport: string;
          status: {
            state: string;
            message?: string;
            tools?: Array<{ name: string; agentName?: string; task?: true }>;
          };
        },
    );
  const byName = Object.fromEntries(reports.map((report) => [report.name, report]));
  assert.deepEqual(
    reports.map((report) => [report.name, report.transport, report.status.state]),
    [
      ['every', 'stdio', 'connected'],
      ['files', 'stdio', 'connected'],
      ['web', 'http', 'connected'],
      ['old', 'sse', 'connected'],
      ['odd', 'invalid', 'failed'],
    ],
  );
  assert.equal(Object.keys(EVERYTHING_CALLS).length, 19, 'the everything server has 19 tools');
  for (const server of ['every', 'web', 'old']) {
    const tools = byName[server]?.status.tools ?? [];
    assert.deepEqual(
      tools.map((tool) => tool.name).sort(),
      Object.keys(EVERYTHING_CALLS).sort(),
      `${server} lists exactly the tools this test calls`,
    );
    for (const tool of tools) {
      assert.equal(tool.agentName, `mcp__${server}__${tool.name}`);
      assert.equal(tool.task, tool.name === 'simulate-research-query' ? true : undefined);
    }
  }
  assert.match(
    String(byName.odd?.status.message),
    /\.mcp\.json: mcpServers\.odd\.type: unknown transport "websocket"; Loom speaks stdio, http, sse$/,
  );

  // The same reports as the table `loom mcp list` prints without --json.
  const table = formatServers(reports as McpServerReport[]);
  assert.match(table, /^ {2}mcp__every__simulate-research-query \(called as a task\)$/m);
  assert.match(table, /^odd +invalid +project +failed: .*unknown transport "websocket"/m);
});

/** One run whose model calls every tool of `server`; resolves with its events. */
async function callEverything(
  server: string,
  more: (workspace: string) => Array<{ name: string; arguments: Record<string, unknown> }>,
) {
  const calls = Object.entries(EVERYTHING_CALLS).map(([name, call]) => ({
    name: `mcp__${server}__${name}`,
    arguments: call.arguments,
  }));
  const folders = scriptedFolders({ rules: [] });
  writeScriptedModel(folders.home, {
    rules: [
      callsThenReply('call them all', [...calls, ...more(folders.workspace)], 'all called'),
      SAMPLING_RULE,
    ],
  });
  everythingFiles(folders);
  const answers = join(folders.home, 'answers.json');
  writeFileSync(answers, JSON.stringify(ELICITATION_ANSWERS));
  const run = await runScripted(folders, 'call them all', {
    json: true,
    args: ['--answers', answers],
  });
  assert.equal(run.code, 0, run.stderr);
  const all = events(run.stdout);
  const file = join(folders.home, 'sessions', `${all[0]?.sessionId}.jsonl`);
  assert.deepEqual(checkSessionInvariants(loadSessionFile(file).events), []);
  return { all, folders, stderr: run.stderr };
}

function checkResults(server: string, all: JsonEvent[], workspace: string): void {
  const results = all.filter((event) => event.type === 'tool/result').map((event) => event.data);
  const workspaceUri = pathToFileURL(workspace).href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [name, call] of Object.entries(EVERYTHING_CALLS)) {
    const result = results.find((data) => data.name === `mcp__${server}__${name}`);
    assert.ok(result, `${server} ${name} was called`);
    assert.equal(result.isError, false, `${server} ${name}: ${String(result.content)}`);
    const expected = typeof call.content === 'function' ? call.content(workspaceUri) : call.content;
    assert.match(String(result.content), expected, `${server} ${name}`);
  }
  const annotated = results.find((data) => data.name === `mcp__${server}__get-annotated-message`);
  assert.deepEqual(annotated?.details, {
    annotations: [
      { block: 0, type: 'text', annotations: { priority: 1, audience: ['user', 'assistant'] } },
      { block: 1, type: 'image', annotations: { priority: 0.5, audience: ['user'] } },
    ],
  });
  const progress = (tool: string) =>
    all
      .filter(
        (event) => event.type === 'tool/progress' && event.data.name === `mcp__${server}__${tool}`,
      )
      .map((event) => event.data);
  // The SDK handles a notification a tick after it reads it, so the last progress, sent just
  // before the result, may come after the call ended (and is dropped); the first never is.
  const steps = progress('trigger-long-running-operation').map(({ progress, total }) => [
    progress,
    total,
  ]);
  assert.deepEqual(
    steps,
    [
      [1, 2],
      [2, 2],
    ].slice(0, Math.max(1, steps.length)),
  );
  const research = progress('simulate-research-query').map((data) => String(data.message));
  assert.match(research[0] ?? '', /^task \S+ working$/, 'the task was created');
  assert.ok(research.includes('Gathering sources...'), research.join(' | '));
}

test('loom run over stdio and over streamable HTTP: every tool is called, the research tool as a task; the filesystem server reads through roots; SSE works', async () => {
  const [overStdio, overHttp] = await Promise.all([
    callEverything('every', (workspace) => [
      { name: 'mcp__files__list_allowed_directories', arguments: {} },
      { name: 'mcp__files__read_text_file', arguments: { path: join(workspace, 'notes.txt') } },
      { name: 'mcp__old__echo', arguments: { message: 'over sse' } },
    ]),
    callEverything('web', () => []),
  ]);
  checkResults('web', overHttp.all, overHttp.folders.workspace);
  const { all, folders, stderr } = overStdio;
  checkResults('every', all, folders.workspace);
  const results = all.filter((event) => event.type === 'tool/result').map((event) => event.data);
  const byName = (name: string) => results.find((data) => data.name === name);
  assert.match(
    String(byName('mcp__files__list_allowed_directories')?.content),
    new RegExp(`Allowed directories:\\n${realpathSync(folders.workspace)}$`),
  );
  assert.equal(byName('mcp__files__read_text_file')?.content, 'read through roots\n');
  assert.equal(byName('mcp__old__echo')?.content, 'Echo: over sse');
  assert.deepEqual(
    all.filter((event) => event.type === 'mcp/server-failed').map((event) => event.data.server),
    ['odd'],
  );
  assert.match(stderr, /MCP server odd \(invalid, project\) failed to start: .*unknown transport/);
});
