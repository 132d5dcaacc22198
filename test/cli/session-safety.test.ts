import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { sessionIdOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, startLoom, writeScriptedModel } from './loom-process.js';

const model = {
  rules: [
    { when: 'stuck', hang: true },
    {
      when: 'wait for (\\S+)',
      steps: [
        {
          tools: [
            {
              name: 'bash',
              arguments: { command: 'while [ ! -e "{{1}}" ]; do sleep 0.05; done; echo released' },
            },
          ],
        },
        { reply: 'waited' },
      ],
    },
  ],
  default: { reply: 'heard: {{prompt}}' },
};

test('loom run --session ID twice at once: the second fails at once with SESSION_BUSY naming the first', {
  timeout: 120_000,
}, async () => {
  const home = temporaryFolder();
  const path = writeScriptedModel(home, model);
  const created = await runLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, 'hello'],
    { home },
  );
  assert.equal(created.code, 0, created.stderr);
  const id = sessionIdOf(created.stdout);
  const first = startLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, '--session', id, 'stuck'],
    { home },
  );
  try {
    await first.waitForLine(/"type":"request\/header"/);
    // The prompt would come from standard input, left open: the refusal must not wait for it.
    const second = startLoom(
      ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, '--session', id],
      { home, keepStdinOpen: true },
    );
    assert.equal((await second.exited).code, 1, second.stderr());
    assert.match(second.stderr(), /SESSION_BUSY/);
    assert.match(second.stderr(), new RegExp(`process ${first.child.pid} is writing it`));
    // --json: the one line on stdout is the error object of a run that could not start.
    assert.equal(
      (JSON.parse(second.stdout()) as { code?: unknown }).code,
      'SESSION_BUSY',
      second.stdout(),
    );
  } finally {
    first.child.kill('SIGINT');
  }
  assert.equal((await first.exited).code, 130);
  const events = loadSessionFile(join(home, 'sessions', `${id}.jsonl`)).events;
  assert.deepEqual(checkSessionInvariants(events), []);
  assert.deepEqual(
    events
      .filter((event) => event.type === 'user/message')
      .map((event) => (event.data as { text: string }).text),
    ['hello', 'stuck'],
    'the second writer wrote nothing',
  );
  const third = await runLoom(
    ['run', '--model', `scripted:${path}`, '--cwd', home, '--session', id, 'after'],
    { home },
  );
  assert.equal(third.code, 0, third.stderr);
  assert.match(third.stdout, /heard: after/);
});

test('a session file left empty or header-less by a crash is reported clearly, then repaired by continuing it', async () => {
  const home = temporaryFolder();
  const path = writeScriptedModel(home, model);
  const sessions = join(home, 'sessions');
  mkdirSync(sessions, { recursive: true });
  writeFileSync(join(sessions, '20261130-001500-empty1.jsonl'), '');
  writeFileSync(join(sessions, '20261130-001501-torn01.jsonl'), '{"type":"session/header","se');

  // Files with no complete header record no workspace: --all lists them.
  const list = await runLoom(['sessions', 'list', '--json', '--all'], { home });
  assert.equal(list.code, 0, list.stderr);
  const rows = list.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; error?: string });
  for (const row of rows) {
    assert.match(row.error ?? '', new RegExp(`${row.id}\\.jsonl has no complete header`));
    assert.match(row.error ?? '', new RegExp(`loom run --session ${row.id}`));
  }
  assert.equal(rows.length, 2);

  for (const id of ['20261130-001500-empty1', '20261130-001501-torn01']) {
    const continued = await runLoom(
      ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, '--session', id, 'go on'],
      { home },
    );
    assert.equal(continued.code, 0, continued.stderr);
    assert.match(continued.stderr, /had no complete header/);
    const loaded = loadSessionFile(join(sessions, `${id}.jsonl`));
    assert.equal(loaded.header.sessionId, id);
    assert.deepEqual(checkSessionInvariants(loaded.events), []);
    assert.equal(loaded.events.at(-1)?.type, 'turn/end');
  }
  const after = await runLoom(['sessions', 'list', '--json', '--all'], { home });
  assert.ok(!after.stdout.includes('"error"'), after.stdout);
});

test('SIGKILL while a tool runs: continuing answers the call as interrupted and the log passes the invariant checker', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const path = writeScriptedModel(home, model);
  const release = join(workspace, 'release');
  const run = startLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', workspace, `wait for ${release}`],
    { home },
  );
  try {
    await run.waitForLine(/"type":"tool\/call"/);
    run.child.kill('SIGKILL');
    await run.exited;
  } finally {
    // Lets the orphaned command finish whatever became of Loom.
    writeFileSync(release, '');
  }
  const id = sessionIdOf(run.stdout());
  const file = join(home, 'sessions', `${id}.jsonl`);
  assert.notDeepEqual(checkSessionInvariants(loadSessionFile(file).events), []);

  const continued = await runLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', workspace, '--session', id, 'next'],
    { home },
  );
  assert.equal(continued.code, 0, continued.stderr);
  const events = loadSessionFile(file).events;
  assert.deepEqual(checkSessionInvariants(events), []);
  const result = events.find((event) => event.type === 'tool/result')?.data as
    | { isError: boolean; content: string }
    | undefined;
  assert.equal(result?.isError, true);
  assert.match(String(result?.content), /interrupted/);
  assert.deepEqual(
    readdirSync(join(home, 'sessions')).filter((name) => !name.endsWith('.jsonl')),
    [],
    'no lock or temporary file is left behind',
  );
});
