import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { sessionIdOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

const model = { default: { reply: 'heard: {{prompt}}' } };

interface WorkspaceJson {
  id: string;
  name: string;
  path: string;
  lastUsed: string;
  sessions: number;
  childSessions: number;
}

function setup() {
  const home = temporaryFolder();
  const scripted = `scripted:${writeScriptedModel(home, model)}`;
  const run = async (prompt: string, where: { cwd?: string; flag?: string }) => {
    const result = await runLoom(
      [
        'run',
        '--json',
        '--model',
        scripted,
        ...(where.flag !== undefined ? ['--cwd', where.flag] : []),
        prompt,
      ],
      { home, ...(where.cwd !== undefined ? { cwd: where.cwd } : {}) },
    );
    assert.equal(result.code, 0, result.stderr);
    return sessionIdOf(result.stdout);
  };
  const workspaces = async () => {
    const listed = await runLoom(['workspaces', 'list', '--json'], { home });
    assert.equal(listed.code, 0, listed.stderr);
    return listed.stdout
      .trim()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as WorkspaceJson);
  };
  return { home, run, workspaces };
}

test('a session made through a symlinked folder and one made in the real folder share one workspace', async () => {
  const { home, run, workspaces } = setup();
  const real = temporaryFolder('loom-real-');
  const link = join(temporaryFolder('loom-links-'), 'linked');
  symlinkSync(real, link);
  const viaLink = await run('through the link', { flag: link });
  const viaReal = await run('in the folder', { cwd: real });
  for (const id of [viaLink, viaReal]) {
    assert.equal(loadSessionFile(join(home, 'sessions', `${id}.jsonl`)).header.cwd, real);
  }
  const rows = await workspaces();
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.equal(rows[0]?.path, real);
  assert.equal(rows[0]?.name, basename(real));
  assert.equal(rows[0]?.sessions, 2);
  const registry = JSON.parse(readFileSync(join(home, 'workspaces.json'), 'utf8')) as {
    workspaces: unknown[];
  };
  assert.equal(registry.workspaces.length, 1);

  const listed = await runLoom(['sessions', 'list', '--cwd', link], { home });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`^${viaLink} .* through the link +1 turn$`, 'm'));
  assert.match(listed.stdout, new RegExp(`^${viaReal} .* in the folder +1 turn$`, 'm'));
});

test("loom sessions list shows the current workspace's sessions; --all shows every workspace", async () => {
  const { home, run } = setup();
  const first = temporaryFolder('loom-first-');
  const second = temporaryFolder('loom-second-');
  const firstId = await run('first folder work', { flag: first });
  const secondId = await run('second folder work', { cwd: second });

  const here = await runLoom(['sessions', 'list'], { home, cwd: first });
  assert.equal(here.code, 0, here.stderr);
  const lines = here.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^ID +CREATED +FIRST PROMPT +TURNS$/);
  assert.equal(lines.length, 2, here.stdout);
  assert.match(lines[1] ?? '', new RegExp(`^${firstId} .* first folder work +1 turn$`));
  assert.equal(
    here.stderr,
    `1 session of other workspaces not shown (this one is ${first}); --all lists every workspace\n`,
  );

  const there = await runLoom(['sessions', 'list', '--cwd', second], { home });
  assert.match(there.stdout, new RegExp(`^${secondId} `, 'm'));
  assert.doesNotMatch(there.stdout, new RegExp(firstId));

  const empty = await runLoom(['sessions', 'list'], { home, cwd: temporaryFolder() });
  assert.equal(empty.code, 0);
  assert.equal(empty.stdout, '');
  assert.match(empty.stderr, /^no sessions in this workspace \(/);

  const all = await runLoom(['sessions', 'list', '--all'], { home, cwd: first });
  assert.equal(all.code, 0, all.stderr);
  const allLines = all.stdout.trimEnd().split('\n');
  assert.match(allLines[0] ?? '', /^ID +CREATED +FIRST PROMPT +TURNS +WORKSPACE$/);
  assert.equal(allLines.length, 3, all.stdout);
  assert.ok(allLines[1]?.startsWith(firstId) && allLines[1].endsWith(first), all.stdout);
  assert.ok(allLines[2]?.startsWith(secondId) && allLines[2].endsWith(second), all.stdout);
  assert.equal(all.stderr, '');

  const json = await runLoom(['sessions', 'list', '--json', '--all'], { home });
  const summaries = json.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; workspace?: string });
  assert.deepEqual(
    summaries.map((summary) => [summary.id, summary.workspace]),
    [
      [firstId, first],
      [secondId, second],
    ],
  );
});

test('loom workspaces list: id, name (disambiguated), sessions, last used, path; --json', async () => {
  const { home, run, workspaces } = setup();
  const left = join(temporaryFolder('loom-left-'), 'app');
  const right = join(temporaryFolder('loom-right-'), 'app');
  mkdirSync(left);
  mkdirSync(right);
  await run('one', { flag: left });
  await run('two', { flag: left });
  await run('three', { flag: right });

  const rows = await workspaces();
  assert.deepEqual(
    rows.map((row) => [row.name, row.path, row.sessions]),
    [
      [`${basename(join(right, '..'))}/app`, right, 1],
      ['app', left, 2],
    ],
  );
  assert.match(rows[0]?.id ?? '', /^[0-9a-f]{12}$/);
  assert.ok((rows[0]?.lastUsed ?? '') > (rows[1]?.lastUsed ?? ''), 'most recently used first');

  const table = await runLoom(['workspaces', 'list'], { home });
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^ID +NAME +SESSIONS +LAST USED +PATH$/);
  assert.match(
    lines[1] ?? '',
    new RegExp(
      `^${rows[0]?.id} +\\S+/app +1 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +${right}$`,
    ),
  );
  assert.match(
    lines[2] ?? '',
    new RegExp(`^${rows[1]?.id} +app +2 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +${left}$`),
  );

  const none = await runLoom(['workspaces', 'list'], { home: temporaryFolder() });
  assert.equal(none.code, 0);
  assert.equal(none.stdout, '');
  assert.equal(none.stderr, 'no workspaces yet\n');
});

test('a corrupt workspaces.json is reported and left alone; runs still work', async () => {
  const { home, run } = setup();
  const registry = join(home, 'workspaces.json');
  writeFileSync(registry, '{"version": 1, "workspaces": [');
  const workspace = temporaryFolder();
  const result = await runLoom(
    ['run', '--model', `scripted:${join(home, 'model.json')}`, '--cwd', workspace, 'hi'],
    { home },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(
    result.stderr.includes(
      `the workspace registry was not updated: the workspace registry ${registry} cannot be read: it is not JSON`,
    ),
    result.stderr,
  );
  assert.equal(readFileSync(registry, 'utf8'), '{"version": 1, "workspaces": [');
  await run('again', { flag: workspace });
  assert.equal(readFileSync(registry, 'utf8'), '{"version": 1, "workspaces": [');

  const listed = await runLoom(['workspaces', 'list'], { home });
  assert.equal(listed.code, 1);
  assert.ok(listed.stderr.includes(`${registry} cannot be read: it is not JSON`), listed.stderr);
  assert.match(listed.stderr, /fix it or remove it/);
});
