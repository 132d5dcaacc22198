/**
 * What a checkpoint holds and a restore puts back, on the shadow repository directly: the exec
 * bit both ways, symbolic links as links (never followed out of the workspace, neither by a
 * snapshot nor by a restore that turns a link back into a folder), an empty workspace, and a
 * workspace that is not a git repository at all (none is made in it).
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ShadowRepository } from '../../src/checkpoint/shadow-repository.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { folderState, treeEntries } from './workspace-state.js';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

test('the exec bit goes back both ways', async () => {
  const workspace = temporaryFolder();
  writeTree(workspace, { 'run.sh': '#!/bin/sh\n', 'plain.txt': 'text\n' });
  chmodSync(join(workspace, 'run.sh'), 0o755);
  const shadow = new ShadowRepository(temporaryFolder(), workspace);
  const start = folderState(workspace);
  const tree = await shadow.snapshot();
  assert.deepEqual(treeEntries(shadow.place.gitDir, tree), ['100644 plain.txt', '100755 run.sh']);
  chmodSync(join(workspace, 'run.sh'), 0o644);
  chmodSync(join(workspace, 'plain.txt'), 0o755);
  await shadow.restore(tree);
  assert.deepEqual(folderState(workspace), start);
});

test('symbolic links are kept as links and never followed out of the workspace', async () => {
  const outside = temporaryFolder();
  writeTree(outside, { 'target.txt': 'outside\n', 'inner/file.txt': 'outside inner\n' });
  const before = folderState(outside);
  const workspace = temporaryFolder();
  writeTree(workspace, { 'sub/f.txt': 'in the workspace\n' });
  symlinkSync(join(outside, 'target.txt'), join(workspace, 'file-link'));
  symlinkSync(outside, join(workspace, 'folder-link'));
  symlinkSync('sub/f.txt', join(workspace, 'relative-link'));
  const shadow = new ShadowRepository(temporaryFolder(), workspace);
  const start = folderState(workspace);
  const tree = await shadow.snapshot();
  assert.deepEqual(treeEntries(shadow.place.gitDir, tree), [
    '120000 file-link',
    '120000 folder-link',
    '120000 relative-link',
    '100644 sub/f.txt',
  ]);
  // The links replaced by files, and the folder `sub` by a link out of the workspace.
  unlinkSync(join(workspace, 'file-link'));
  writeFileSync(join(workspace, 'file-link'), 'a file now\n');
  unlinkSync(join(workspace, 'relative-link'));
  rmSync(join(workspace, 'sub'), { recursive: true });
  symlinkSync(join(outside, 'inner'), join(workspace, 'sub'));
  await shadow.snapshot();
  await shadow.restore(tree);
  assert.deepEqual(folderState(workspace), start);
  assert.deepEqual(folderState(outside), before, 'nothing outside the workspace changed');
});

test('an empty workspace is the empty tree, and restoring it removes what was made since', async () => {
  const workspace = temporaryFolder();
  const shadow = new ShadowRepository(temporaryFolder(), workspace);
  assert.equal(await shadow.snapshot(), EMPTY_TREE);
  writeTree(workspace, { 'a.txt': 'a\n', 'deep/er/b.txt': 'b\n' });
  await shadow.restore(EMPTY_TREE);
  assert.deepEqual(folderState(workspace), {});
});

test('a workspace that is not a git repository: snapshot and restore, and no .git made in it', async () => {
  const workspace = temporaryFolder();
  writeTree(workspace, { 'a.txt': 'a\n', 'bin.dat': Buffer.from([0, 255, 13, 10, 26]) });
  mkdirSync(join(workspace, 'empty-folder'));
  const shadow = new ShadowRepository(temporaryFolder(), workspace);
  const start = folderState(workspace);
  const tree = await shadow.snapshot();
  writeTree(workspace, { 'a.txt': 'changed\n', 'bin.dat': Buffer.from([1]), 'c.txt': 'c\n' });
  assert.deepEqual(
    (await shadow.changes(tree)).map((change) => `${change.status} ${change.path}`),
    ['M a.txt', 'M bin.dat', 'A c.txt'],
  );
  await shadow.restore(tree);
  assert.deepEqual(folderState(workspace), start);
  assert.equal(existsSync(join(workspace, '.git')), false);
});
