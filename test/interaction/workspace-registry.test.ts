import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SessionStore } from '../../src/core/session-store.js';
import { WorkspaceError } from '../../src/interaction/workspace-contract.js';
import {
  lockWorkspaces,
  readWorkspaces,
  recordWorkspaceUse,
  workspaceIdOf,
  workspacesFile,
} from '../../src/interaction/workspace-registry.js';
import { deadPid } from '../helpers/session-holder.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const registryUrl = new URL('../../src/interaction/workspace-registry.ts', import.meta.url).href;

/** Another process that records `folder`, saying `waiting` when it finds the lock held. */
function otherWriter(home: string, folder: string) {
  const script = join(temporaryFolder('loom-registry-writer-'), 'record.mjs');
  writeFileSync(
    script,
    [
      `const { recordWorkspaceUse } = await import(${JSON.stringify(registryUrl)});`,
      `recordWorkspaceUse(${JSON.stringify(home)}, ${JSON.stringify(folder)}, new Date(), {`,
      `  onBusy: () => process.stdout.write('waiting\\n'),`,
      `});`,
      `process.stdout.write('recorded\\n');`,
    ].join('\n'),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'pipe' });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8');
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const waiting = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('waiting\n')) resolve();
    });
    void exited.then(() =>
      reject(new Error(`the other writer ended without waiting for the lock: ${output}${errors}`)),
    );
  });
  return { waiting, exited, output: () => output, errors: () => errors };
}

test('two processes updating workspaces.json at once: the second waits for the lock, then merges; no entry is lost', async () => {
  const home = temporaryFolder();
  const held = lockWorkspaces(home);
  let released = false;
  try {
    const before = held.read();
    assert.deepEqual(before, []);
    // The other process starts while this one holds the lock between its read and its write.
    const other = otherWriter(home, '/work/two');
    await other.waiting;
    held.write([
      ...before,
      { id: workspaceIdOf('/work/one'), name: 'one', path: '/work/one', lastUsed: 'x' },
    ]);
    held.release();
    released = true;
    const [code] = await other.exited;
    assert.equal(code, 0, other.errors());
    assert.match(other.output(), /recorded/);
  } finally {
    if (!released) held.release();
  }
  assert.deepEqual(
    readWorkspaces(home).map((entry) => entry.path),
    ['/work/one', '/work/two'],
  );
});

test('recording a workspace again updates its last use; names are disambiguated; ids are stable', () => {
  const home = temporaryFolder();
  const first = recordWorkspaceUse(home, '/a/app', new Date('2026-11-30T10:00:00Z'));
  const second = recordWorkspaceUse(home, '/b/app', new Date('2026-11-30T11:00:00Z'));
  const third = recordWorkspaceUse(home, '/c/b/app', new Date('2026-11-30T11:30:00Z'));
  const again = recordWorkspaceUse(home, '/a/app', new Date('2026-11-30T12:00:00Z'));
  assert.deepEqual(
    [first.name, second.name, third.name, again.name],
    ['app', 'b/app', 'b/app-2', 'app'],
  );
  assert.equal(again.id, first.id);
  assert.equal(first.id, workspaceIdOf('/a/app'));
  assert.notEqual(first.id, second.id);
  const stored = readWorkspaces(home);
  assert.equal(stored.length, 3);
  assert.equal(stored[0]?.lastUsed, '2026-11-30T12:00:00.000Z');
  const file = JSON.parse(readFileSync(workspacesFile(home), 'utf8')) as { version: number };
  assert.equal(file.version, 1);
});

test('a corrupt workspaces.json is reported naming the file and never overwritten', () => {
  const home = temporaryFolder();
  const path = workspacesFile(home);
  for (const [content, problem] of [
    ['{"version": 1, "workspaces": [', /is not JSON/],
    ['{"version": 7, "workspaces": []}', /version is 7/],
    ['{"version": 1, "workspaces": [{"id": "x"}]}', /workspaces\[0\]\.name/],
  ] as const) {
    writeFileSync(path, content);
    assert.throws(
      () => recordWorkspaceUse(home, '/a/app'),
      (error: unknown) =>
        error instanceof WorkspaceError &&
        error.code === 'WORKSPACES_CORRUPT' &&
        error.message.includes(path) &&
        problem.test(error.message),
    );
    assert.equal(readFileSync(path, 'utf8'), content, 'the file is left as it was');
  }
});

test('the lock of a process that died is taken over', async () => {
  const home = temporaryFolder();
  writeFileSync(`${workspacesFile(home)}.lock`, `${await deadPid()}\n`);
  recordWorkspaceUse(home, '/a/app');
  assert.deepEqual(
    readWorkspaces(home).map((entry) => entry.path),
    ['/a/app'],
  );
});

test('a session header records the real path of its workspace; one without it still loads', () => {
  const home = temporaryFolder();
  const real = temporaryFolder('loom-real-');
  const links = temporaryFolder('loom-links-');
  const link = join(links, 'linked');
  symlinkSync(real, link);
  const store = new SessionStore(home);
  const viaLink = store.create({ cwd: link });
  const viaReal = store.create({ cwd: real });
  viaLink.close();
  viaReal.close();
  assert.equal(viaLink.header.cwd, real);
  assert.equal(loadSessionFile(viaLink.path).header.cwd, real);
  assert.equal(viaReal.header.cwd, real);

  const old = join(home, 'sessions', '20200101-000000-oldold.jsonl');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  writeFileSync(
    old,
    `${JSON.stringify({
      type: 'session/header',
      seq: 0,
      time: 1,
      data: {
        version: 1,
        sessionId: '20200101-000000-oldold',
        created: '2020-01-01T00:00:00.000Z',
        parentSession: null,
        seedLength: 0,
        delegationDepth: 0,
      },
    })}\n`,
  );
  const summaries = store.list();
  assert.deepEqual(
    summaries.map((summary) => summary.workspace),
    [undefined, real, real],
  );
  assert.equal(loadSessionFile(old).header.cwd, undefined);
});
