/**
 * `kill -9` in the middle of a snapshot and of a restore (at a known point inside git, by no
 * timing: `killed-git.ts`) leaves the workspace and the shadow repository usable: the next
 * snapshot works; an unfinished restore is reported by `loom run`, and `loom rewind` finishes it
 * to the target tree byte for byte, logging the tree from before the first attempt.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ShadowRepository } from '../../src/checkpoint/shadow-repository.js';
import { runLoom, runScripted, scriptedFolders } from '../cli/loom-process.js';
import { writeTree } from '../helpers/file-tree.js';
import { isolatedGitEnvironment } from '../helpers/git-repository.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { killInside } from './killed-git.js';
import { folderState } from './workspace-state.js';

function fsck(shadow: ShadowRepository): void {
  execFileSync('git', ['--git-dir', shadow.place.gitDir, 'fsck', '--no-dangling'], {
    env: isolatedGitEnvironment(),
    stdio: 'pipe',
  });
}

test('killed in the middle of a snapshot: the workspace is as it was and the next snapshot works', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeTree(workspace, { 'a.txt': 'one\n', 'b.txt': 'b\n' });
  const shadow = new ShadowRepository(home, workspace);
  const first = await shadow.snapshot();
  const started = folderState(workspace);
  writeTree(workspace, { 'a.txt': 'two\n', 'c.txt': 'new\n' });
  const changed = folderState(workspace);
  await killInside('add', [home, workspace, 'snapshot']).killed;
  assert.deepEqual(folderState(workspace), changed, 'a snapshot changes no file');
  const after = new ShadowRepository(home, workspace, { lockWaitMs: 0 });
  assert.equal(after.unfinishedRestore(), undefined);
  const second = await after.snapshot();
  assert.deepEqual(
    (await after.changes(first, second)).map((change) => `${change.status} ${change.path}`),
    ['M a.txt', 'A c.txt'],
  );
  await after.restore(first);
  assert.deepEqual(folderState(workspace), started);
  await after.restore(second);
  assert.deepEqual(folderState(workspace), changed);
  fsck(after);
});

test('killed in the middle of a restore: loom run reports it and loom rewind finishes it byte for byte', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^one$',
        [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } },
          bashCall('rm b.txt && mkdir -p new && echo made > new/since.txt && chmod +x run.sh'),
        ],
        'done',
      ),
    ],
    default: { reply: 'ok' },
  });
  const { home, workspace } = folders;
  writeTree(workspace, { 'a.txt': 'zero\n', 'b.txt': 'b\n', 'run.sh': '#!/bin/sh\n' });
  const began = folderState(workspace);
  assert.equal((await runScripted(folders, 'one')).code, 0);
  const ended = folderState(workspace);
  const file = readdirSync(join(home, 'sessions')).find((name) => name.endsWith('.jsonl'));
  assert.ok(file);
  const id = file.slice(0, -'.jsonl'.length);
  const events = readFileSync(join(home, 'sessions', file), 'utf8')
    .trim()
    .split('\n');
  const checkpoint = events
    .map((line) => JSON.parse(line) as { type: string; data?: { tree?: string } })
    .find((event) => event.type === 'checkpoint/create');
  const tree = checkpoint?.data?.tree;
  assert.ok(tree);

  // Killed with the files restored but one half-written and one made since still there.
  await killInside(
    'read-tree',
    [home, workspace, 'restore', tree, id, 'turn-1', '1'],
    'printf half > a.txt; mkdir -p new; printf late > new/since.txt',
  ).killed;
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'half');
  const shadow = new ShadowRepository(home, workspace);
  assert.equal(shadow.unfinishedRestore()?.tree, tree);

  const run = await runScripted(folders, 'hello');
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    new RegExp(
      `unfinished restore of session ${id} to turn 1 .* finish it with loom rewind --session ${id} --to 1 --files`,
    ),
  );
  const rewind = await runLoom(['rewind', '--session', id, '--to', '1', '--files'], { home });
  assert.equal(rewind.code, 0, rewind.stderr);
  assert.match(rewind.stderr, /finished the restore a crash cut short/);
  assert.deepEqual(folderState(workspace), began, 'the workspace as turn 1 began');
  assert.equal(shadow.unfinishedRestore(), undefined);
  fsck(shadow);

  // The rewind logged the tree from before the killed restore: restoring it undoes both.
  const restore = readFileSync(join(home, 'sessions', file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data?: { before?: string } })
    .findLast((event) => event.type === 'checkpoint/restore');
  assert.ok(restore?.data?.before);
  await shadow.restore(restore.data.before);
  assert.deepEqual(folderState(workspace), ended);
});
