/**
 * Issue 35's call protocol through bin/loom with the scripted model and a fixture server whose
 * tools change (test/mcp/fixtures/changing-server.mjs, which writes what reached it to a file):
 * a tool added mid-session is offered at the next step (and the log says so, and rebuilds each
 * request's tools); an aborted call sends `notifications/cancelled`, an aborted task
 * `tasks/cancel`; a call sends a progressToken, its progress keeps it alive past
 * `mcp.callTimeoutMs`, and silence past it cancels the call.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { runScripted, scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines, requestPrompts } from '../helpers/session-files.js';
import { CHANGING_SERVER } from './mcp-fixtures.js';

interface JsonEvent {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

const events = (stdout: string) => ndjsonLines<JsonEvent>(stdout);

/** Runs `calls` against the changing server under `mcp` settings (YAML lines). */
async function runAgainstChangingServer(
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  mcp: string[],
) {
  const folders = scriptedFolders({
    rules: [callsThenReply('go', calls, 'done')],
  });
  const wire = join(folders.home, 'wire.txt');
  writeFileSync(wire, '');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    [
      'mcp:',
      ...mcp.map((line) => `  ${line}`),
      '  servers:',
      `    change: { command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify([CHANGING_SERVER, wire])} }`,
      '',
    ].join('\n'),
  );
  const run = await runScripted(folders, 'go', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const all = events(run.stdout);
  const file = join(folders.home, 'sessions', `${all[0]?.sessionId}.jsonl`);
  const log = loadSessionFile(file).events;
  assert.deepEqual(checkSessionInvariants(log), []);
  const results = all.filter((event) => event.type === 'tool/result').map((event) => event.data);
  return { all, results, log, file, wire: readFileSync(wire, 'utf8').split('\n') };
}

test('a tool the server adds mid-session is offered at the next step; an aborted call and an aborted task are cancelled on the wire', async () => {
  const { all, results, log, file, wire } = await runAgainstChangingServer(
    [
      { name: 'mcp__change__add-tool', arguments: { name: 'fresh' } },
      { name: 'mcp__change__fresh', arguments: { text: 'hi' } },
      { name: 'mcp__change__wait', arguments: {} },
      { name: 'mcp__change__slow-task', arguments: {} },
    ],
    ['maxCallMs: 400'],
  );
  assert.deepEqual(
    results.map((result) => [result.name, result.content, result.errorCode]),
    [
      ['mcp__change__add-tool', 'added fresh', undefined],
      ['mcp__change__fresh', 'fresh says hi', undefined],
      [
        'mcp__change__wait',
        'Tool mcp__change__wait timed out after 400 ms and was stopped.',
        'TOOL_TIMEOUT',
      ],
      [
        'mcp__change__slow-task',
        'Tool mcp__change__slow-task timed out after 400 ms and was stopped.',
        'TOOL_TIMEOUT',
      ],
    ],
  );
  const changes = all.filter((event) => event.type === 'mcp/tools-changed');
  assert.deepEqual(
    changes.map((event) => event.data),
    [
      {
        server: 'change',
        tools: [
          'slow-task',
          'add-tool',
          'wait',
          'tick',
          'add-prompt',
          'add-resource',
          'elicited',
          'fresh',
        ].map((tool) => `mcp__change__${tool}`),
        added: ['mcp__change__fresh'],
        removed: [],
      },
    ],
  );
  // Each request's tools, rebuilt from the log: the new tool from the second request on.
  const offered = requestPrompts(log, dirname(file)).map((request) =>
    request.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp__')),
  );
  assert.equal(offered.length, 5);
  assert.ok(!offered[0]?.includes('mcp__change__fresh'));
  for (const tools of offered.slice(1)) assert.ok(tools.includes('mcp__change__fresh'));
  assert.ok(
    wire.some((line) => /^cancelled \d+$/.test(line)),
    `notifications/cancelled reached the server: ${wire.join(' | ')}`,
  );
  assert.ok(wire.includes('task created') && wire.includes('task cancelled'), wire.join(' | '));
});

test('a call carries a progressToken; progress keeps it alive past mcp.callTimeoutMs; silence past it cancels the call', async () => {
  const { all, results, wire } = await runAgainstChangingServer(
    [
      { name: 'mcp__change__tick', arguments: { count: 8, everyMs: 150 } },
      { name: 'mcp__change__wait', arguments: {} },
    ],
    ['callTimeoutMs: 700'],
  );
  const [tick, wait] = results;
  assert.equal(tick?.content, 'ticked 8');
  assert.equal(wait?.errorCode, 'MCP_CALL_TIMEOUT');
  assert.match(
    String(wait?.content),
    /^MCP server change was cancelled: MCP error -32001: Request timed out \(it may go 700 ms without a word, mcp\.callTimeoutMs, and take 600000 ms in all, mcp\.maxCallMs\)$/,
  );
  const progress = all
    .filter((event) => event.type === 'tool/progress')
    .map((event) => [event.data.progress, event.data.total, event.data.message]);
  assert.ok(progress.length >= 7, `progress reached the log: ${JSON.stringify(progress)}`);
  assert.deepEqual(progress[0], [1, 8, 'tick 1']);
  assert.ok(wire.includes('progressToken sent'));
  assert.ok(
    wire.some((line) => /^cancelled \d+$/.test(line)),
    wire.join(' | '),
  );
});
