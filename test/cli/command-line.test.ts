/**
 * The command line as a newcomer meets it (issue 30, item 18), through bin/loom: `loom help`,
 * "did you mean" on one line for a mistyped command or flag, the `--json` error object of a run
 * that cannot start, a bad `--model` as a usage error, `loom acp --cwd`, an HTTP MCP server that
 * is down named by its URL, and one style for every list table.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, startLoom, writeScriptedModel } from './loom-process.js';
import { writeFile } from './workflow-fixture.js';

const NO_MODEL_ENV = { DEEPSEEK_API_KEY: '', LOOM_MODEL: '' };

test('loom help [COMMAND] prints the same text as loom [COMMAND] --help', async () => {
  const home = temporaryFolder();
  for (const command of [[], ['run'], ['workflow'], ['workflow', 'run'], ['mcp', 'list']]) {
    const [viaHelp, viaFlag] = await Promise.all([
      runLoom(['help', ...command], { home }),
      runLoom([...command, '--help'], { home }),
    ]);
    assert.equal(viaHelp.code, 0, viaHelp.stderr);
    assert.equal(viaFlag.code, 0, viaFlag.stderr);
    assert.ok(viaFlag.stdout.startsWith('Usage: loom'), viaFlag.stdout);
    assert.equal(viaHelp.stdout, viaFlag.stdout, `loom help ${command.join(' ')}`);
  }
  const unknown = await runLoom(['help', 'wrkflow'], { home });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command 'wrkflow' \(did you mean workflow\?\)/);
});

test('an unknown command gets one line with "did you mean" and exit 2', async () => {
  const home = temporaryFolder();
  const [top, nested] = await Promise.all([
    runLoom(['runn', 'hello'], { home }),
    runLoom(['workflow', 'rnu'], { home }),
  ]);
  assert.equal(top.code, 2);
  assert.equal(
    top.stderr,
    "loom: unknown command 'runn' (did you mean run?); loom --help lists the commands\n",
  );
  assert.equal(nested.code, 2);
  assert.equal(
    nested.stderr,
    "loom workflow: unknown command 'rnu' (did you mean run?); loom workflow --help lists the commands\n",
  );
});

test('a mistyped flag gets ONE line with "did you mean" and a pointer to --help, not the help', async () => {
  const home = temporaryFolder();
  const [run, workflow] = await Promise.all([
    runLoom(['run', '--jsn', 'hello'], { home }),
    runLoom(['workflow', 'run', '--modle', 'x', 'a.js'], { home }),
  ]);
  assert.equal(run.code, 2);
  assert.equal(
    run.stderr,
    "loom run: unknown option '--jsn' (did you mean --json?); loom run --help lists the options\n",
  );
  assert.equal(workflow.code, 2);
  assert.equal(
    workflow.stderr,
    "loom workflow run: unknown option '--modle' (did you mean --model?); loom workflow run --help lists the options\n",
  );
  assert.equal(run.stdout + workflow.stdout, '');
});

test('--json prints {"error", "code"} on stdout when loom run or loom workflow run cannot start', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'flow.js',
    'export const meta = { name: "f", description: "d" };\nreturn 1;\n',
  );
  const [run, workflow] = await Promise.all([
    runLoom(['run', '--json', '--model', 'bogus', 'hello'], { home, env: NO_MODEL_ENV }),
    runLoom(['workflow', 'run', '--json', '--model', 'bogus', script], {
      home,
      env: NO_MODEL_ENV,
    }),
  ]);
  for (const [name, result] of [
    ['run', run],
    ['workflow run', workflow],
  ] as const) {
    assert.equal(result.code, 2, `${name}: ${result.stderr}`);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 1, `${name}: ${result.stdout}`);
    const object = JSON.parse(lines[0] ?? '') as { error?: unknown; code?: unknown };
    assert.equal(object.code, 'MODEL_SPEC', name);
    assert.match(String(object.error), /"bogus" names no provider/, name);
    assert.match(result.stderr, /"bogus" names no provider/, name);
  }
});

test('a bad --model for loom run is a usage error: exit 2, one line naming it', async () => {
  const home = temporaryFolder();
  const result = await runLoom(['run', '--model', 'nope:model', 'hello'], {
    home,
    env: NO_MODEL_ENV,
  });
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^loom: the model from --model is not usable: .*"nope"/);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
});

test('loom workflow --help, and the workflow line of loom --help, name every subcommand', async () => {
  const home = temporaryFolder();
  const [workflow, top] = await Promise.all([
    runLoom(['workflow', '--help'], { home }),
    runLoom(['--help'], { home }),
  ]);
  const summary = top.stdout.split('\n').find((line) => /^\s+workflow\s/.test(line)) ?? '';
  for (const command of ['list', 'run', 'check', 'runs', 'report']) {
    assert.match(workflow.stdout, new RegExp(`^  ${command} `, 'm'), command);
    assert.match(summary, new RegExp(`\\b${command}\\b`), `loom --help: ${summary}`);
  }
});

test('loom acp --cwd DIR works from DIR: a relative scripted model there answers a session', async () => {
  const home = temporaryFolder();
  const folder = temporaryFolder();
  writeScriptedModel(folder, { default: { reply: 'ok' } });
  const acp = startLoom(['acp', '--cwd', folder, '--model', 'scripted:model.json'], {
    home,
    keepStdinOpen: true,
    env: NO_MODEL_ENV,
  });
  const send = (message: unknown) => acp.child.stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
  await acp.waitForLine(/"id":0/);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'session/new',
    params: { cwd: folder, mcpServers: [] },
  });
  const created = JSON.parse(await acp.waitForLine(/"id":1/)) as {
    result?: { sessionId?: string };
  };
  acp.child.stdin.end();
  assert.equal((await acp.exited).code, 0, acp.stderr());
  assert.ok(created.result?.sessionId, JSON.stringify(created));
});

test('an HTTP MCP server that is down is named by its URL, without user info or query', async () => {
  const home = temporaryFolder();
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const address = closed.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  writeFileSync(
    join(home, 'config.yaml'),
    `mcp:\n  servers:\n    down: { url: "http://127.0.0.1:${port}/mcp?token=hush-hush" }\n`,
  );
  const result = await runLoom(['mcp', 'list', '--json'], { home, cwd: home });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout.trim()) as { status: { message?: string } };
  const message = report.status.message ?? '';
  assert.ok(message.startsWith(`could not connect to http://127.0.0.1:${port}/mcp: `), message);
  assert.match(message, /ECONNREFUSED/);
  assert.doesNotMatch(result.stdout + result.stderr, /hush-hush/);
});

test('every list table has upper-case headers and local times to the second', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  const script = writeFile(
    home,
    'flow.js',
    'export const meta = { name: "flow", description: "d" };\nreturn 1;\n',
  );
  // A zone away from UTC, so a UTC time would show.
  const env = { ...NO_MODEL_ENV, TZ: 'Asia/Kolkata' };
  const loom = (args: string[]) => runLoom(args, { home, env, cwd: workspace });
  assert.equal((await loom(['run', '--model', `scripted:${model}`, 'hello'])).code, 0);
  assert.equal((await loom(['workflow', 'run', script, '--model', `scripted:${model}`])).code, 0);
  const local = new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Asia/Kolkata',
    dateStyle: 'short',
    timeStyle: 'medium',
  });
  const firstJson = async (args: string[]) =>
    JSON.parse((await loom([...args, '--json'])).stdout.split('\n')[0] ?? '') as Record<
      string,
      unknown
    >;
  const tables: Array<[string[], RegExp, unknown]> = [
    [
      ['sessions', 'list'],
      /^ID +CREATED +FIRST PROMPT +TURNS$/,
      (await firstJson(['sessions', 'list'])).created,
    ],
    [
      ['workspaces', 'list'],
      /^ID +NAME +SESSIONS +LAST USED +PATH$/,
      (await firstJson(['workspaces', 'list'])).lastUsed,
    ],
    [
      ['workflow', 'runs'],
      /^ID +NAME +STATUS +AGENTS +TOKENS +STARTED$/,
      (await firstJson(['workflow', 'runs'])).startedAt,
    ],
  ];
  for (const [args, header, time] of tables) {
    const result = await loom(args);
    assert.equal(result.code, 0, result.stderr);
    const [titles, row] = result.stdout.split('\n');
    assert.match(titles ?? '', header, args.join(' '));
    const shown = local.format(new Date(time as string | number));
    assert.match(shown, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.ok(row?.includes(shown), `${args.join(' ')}: ${row} lacks ${shown}`);
  }
});
