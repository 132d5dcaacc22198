/**
 * Issue 13's MCP acceptance through bin/loom in real processes: a stdio server (config.yaml) and a
 * streamable-HTTP server (the project's .mcp.json, its header from an environment variable),
 * both written with the MCP SDK. Their tools are listed (`loom mcp list`), called by the scripted
 * model in `loom run`, refused by a deny rule; a server that dies mid-call gives an error result
 * and is started again at the next call; a server that never starts is reported once and the
 * run still completes. No server process outlives the run.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { runLoom, runScripted, scriptedFolders } from '../cli/loom-process.js';
import { isAlive } from '../helpers/process-state.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines } from '../helpers/session-files.js';
import {
  type HttpServer,
  SILENT_SERVER,
  startedPids,
  startHttpServer,
  stdioServerYaml,
} from './mcp-fixtures.js';

const TOKEN = 'token-for-the-mcp-test-3141';

interface JsonEvent {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

const events = (stdout: string) => ndjsonLines<JsonEvent>(stdout);

function results(
  all: JsonEvent[],
): Array<{ name: string; content: string; isError: boolean; errorCode?: string }> {
  return all
    .filter((event) => event.type === 'tool/result')
    .map(
      (event) =>
        event.data as { name: string; content: string; isError: boolean; errorCode?: string },
    );
}

let http: HttpServer;
before(async () => {
  http = await startHttpServer(TOKEN);
});
after(() => http.stop());

/** Folders whose config runs the stdio fixture as `files` and whose .mcp.json names `web`. */
function mcpFolders(model: unknown, config = '') {
  const folders = scriptedFolders(model);
  const pidFile = join(folders.home, 'files.pids');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `mcp:\n  servers:\n    files: ${stdioServerYaml('files', pidFile)}\n${config}`,
  );
  writeFileSync(
    join(folders.workspace, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        web: {
          type: 'http',
          url: http.url,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the .mcp.json reference syntax.
          headers: { Authorization: 'Bearer ${MCP_TEST_TOKEN}' },
        },
      },
    }),
  );
  return { folders, pidFile, env: { MCP_TEST_TOKEN: TOKEN } };
}

test('loom mcp list shows each server, its status and its tools', async () => {
  const { folders, pidFile, env } = mcpFolders({ rules: [] });
  const listed = await runLoom(['mcp', 'list', '--json', '--cwd', folders.workspace], {
    home: folders.home,
    env,
  });
  assert.equal(listed.code, 0, listed.stderr);
  const reports = listed.stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as {
          name: string;
          source: string;
          transport: string;
          status: { state: string; tools: Array<{ agentName?: string }> };
        },
    );
  assert.deepEqual(
    reports.map(({ name, source, transport, status }) => [name, source, transport, status.state]),
    [
      ['files', 'config', 'stdio', 'connected'],
      ['web', 'project', 'http', 'connected'],
    ],
  );
  for (const report of reports) {
    assert.deepEqual(
      report.status.tools.map((tool) => tool.agentName),
      ['echo', 'whoami', 'crash', 'picture', 'fail', 'big'].map(
        (tool) => `mcp__${report.name}__${tool}`,
      ),
    );
  }
  for (const pid of startedPids(pidFile))
    assert.equal(isAlive(pid), false, `server ${pid} still runs`);

  const plain = await runLoom(['mcp', 'list', '--cwd', folders.workspace], { home: folders.home });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^files +stdio +config +connected \(files 1\.0\.0\), 6 tools$/m);
  // Without the variable its header names, the HTTP server is reported, naming the variable.
  assert.match(
    plain.stdout,
    /^web +http +project +failed: environment variable MCP_TEST_TOKEN is not set/m,
  );
});

test('loom run: the model calls the tools of both servers and sees their schemas as they are', async () => {
  const { folders, pidFile, env } = mcpFolders({
    rules: [
      callsThenReply(
        'use the servers',
        [
          { name: 'mcp__files__echo', arguments: { text: 'over stdio' } },
          { name: 'mcp__web__echo', arguments: { text: 'over http' } },
          { name: 'mcp__web__picture', arguments: {} },
          { name: 'mcp__files__fail', arguments: {} },
          { name: 'mcp__files__big', arguments: { characters: 50_000 } },
          { name: 'mcp__files__echo', arguments: { text: 7 } },
          { name: 'bash', arguments: { command: 'echo "[$MCP_TEST_TOKEN]"' } },
        ],
        'all done',
      ),
    ],
  });
  const run = await runScripted(folders, 'use the servers', { json: true, env });
  assert.equal(run.code, 0, run.stderr);
  const all = events(run.stdout);
  const [stdio, web, picture, failed, big, invalid, bash] = results(all);
  assert.deepEqual(stdio, { ...stdio, content: 'files echo: over stdio', isError: false });
  assert.deepEqual(web, { ...web, content: 'http echo: over http', isError: false });
  assert.equal(
    picture?.content,
    '[image: image/png, 70 bytes]\n[resource file:///notes.txt: text/plain, 10 bytes]\nsome notes\n[resource file:///data.bin: application/octet-stream, 4 bytes]',
  );
  assert.deepEqual([failed?.content, failed?.isError], ['it went wrong', true]);
  assert.ok(big && big.content.length < 31_000, 'a long result is capped like bash output');
  assert.match(big?.content ?? '', /characters cut/);
  assert.equal(invalid?.errorCode, 'TOOL_ARGUMENTS');
  assert.match(invalid?.content ?? '', /arguments\.text: must be string/);
  assert.equal(
    bash?.content.trim().split('\n')[0],
    '[]',
    'bash commands never see the header variable',
  );

  const blob = all.find((event) => event.type === 'prompt/blob');
  const tools = (blob?.data.tools ?? []) as Array<{
    name: string;
    parameters: Record<string, unknown>;
  }>;
  const echo = tools.find((tool) => tool.name === 'mcp__web__echo');
  assert.deepEqual(echo?.parameters, {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  });
  assert.ok(!run.stdout.includes(TOKEN) && !run.stderr.includes(TOKEN));
  const sessionId = all[0]?.sessionId ?? '';
  const file = join(folders.home, 'sessions', `${sessionId}.jsonl`);
  assert.ok(!readFileSync(file, 'utf8').includes(TOKEN), 'the token never reaches the log');
  assert.deepEqual(checkSessionInvariants(loadSessionFile(file).events), []);
  for (const pid of startedPids(pidFile))
    assert.equal(isAlive(pid), false, `server ${pid} still runs`);
});

test('loom run: a deny rule on mcp__web__* refuses that server and leaves the other', async () => {
  const { folders, env } = mcpFolders(
    {
      rules: [
        callsThenReply(
          'try both',
          [
            { name: 'mcp__web__echo', arguments: { text: 'denied' } },
            { name: 'mcp__files__echo', arguments: { text: 'allowed' } },
          ],
          'tried',
        ),
      ],
    },
    'permissions:\n  - tool: "mcp__web__*"\n    action: deny\n    reason: no web today\n',
  );
  const run = await runScripted(folders, 'try both', { json: true, env });
  assert.equal(run.code, 0, run.stderr);
  const [web, stdio] = results(events(run.stdout));
  assert.equal(web?.errorCode, 'TOOL_DENIED');
  assert.match(web?.content ?? '', /no web today/);
  assert.deepEqual([stdio?.content, stdio?.isError], ['files echo: allowed', false]);
});

test('loom run: a server that dies mid-call gives an error result and is started again at the next call', async () => {
  const { folders, pidFile, env } = mcpFolders({
    rules: [
      callsThenReply(
        'crash it',
        [
          { name: 'mcp__files__whoami', arguments: {} },
          { name: 'mcp__files__crash', arguments: {} },
          { name: 'mcp__files__whoami', arguments: {} },
        ],
        '{{lastToolResult}}',
      ),
    ],
  });
  const run = await runScripted(folders, 'crash it', { json: true, env });
  assert.equal(run.code, 0, run.stderr);
  const [before, crash, after] = results(events(run.stdout));
  const pids = startedPids(pidFile);
  assert.equal(pids.length, 2, 'started once, then once more after the crash');
  assert.equal(before?.content, `files pid ${pids[0]}`);
  assert.equal(crash?.isError, true);
  assert.equal(crash?.errorCode, 'MCP_SERVER_UNAVAILABLE');
  assert.match(crash?.content ?? '', /MCP server files stopped during the call/);
  assert.equal(after?.content, `files pid ${pids[1]}`);
  for (const pid of pids) assert.equal(isAlive(pid), false, `server ${pid} still runs`);
});

test('loom run: a server that never starts is reported once, within its timeout, and the run completes', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'carry on',
        [{ name: 'mcp__files__echo', arguments: { text: 'x' } }],
        '{{lastToolResult}}',
      ),
    ],
  });
  const silentPids = join(folders.home, 'silent.pids');
  const pidFile = join(folders.home, 'files.pids');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    [
      'mcp:',
      '  servers:',
      `    files: ${stdioServerYaml('files', pidFile)}`,
      `    silent: { command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify([SILENT_SERVER, silentPids])}, startTimeoutMs: 400 }`,
      '    missing: { command: no-such-mcp-server-command }',
      'permissions:',
      // Rules may name MCP tools no server offers (yet): the config still loads.
      '  - tool: "mcp__github__*"',
      '    action: deny',
      '',
    ].join('\n'),
  );
  const run = await runScripted(folders, 'carry on', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const all = events(run.stdout);
  const failures = all
    .filter((event) => event.type === 'mcp/server-failed')
    .map((event) => event.data);
  assert.deepEqual(
    failures.map(({ server, reason }) => [server, reason]),
    [
      ['silent', 'timeout'],
      ['missing', 'error'],
    ],
  );
  assert.equal(failures[0]?.message, 'it did not start within 400 ms');
  assert.match(String(failures[1]?.message), /ENOENT/);
  const firstTurn = all.findIndex((event) => event.type === 'turn/start');
  assert.ok(
    all.findIndex((event) => event.type === 'mcp/server-failed') < firstTurn,
    'reported before the turn',
  );
  assert.equal(
    run.stderr.match(/MCP server silent \(stdio, config\) did not start in time/g)?.length,
    1,
  );
  assert.equal(
    run.stderr.match(/MCP server missing \(stdio, config\) failed to start/g)?.length,
    1,
  );
  assert.equal(results(all)[0]?.content, 'files echo: x');
  assert.match(run.stdout, /"type":"turn\/end".*"reason":"completed"/);
  for (const pid of [...startedPids(silentPids), ...startedPids(pidFile)]) {
    assert.equal(isAlive(pid), false, `server ${pid} still runs`);
  }
});
