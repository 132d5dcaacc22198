/**
 * One Loom process at a time in a shadow repository (`loom.lock`): a live holder makes a
 * snapshot wait, then fail with CHECKPOINT_BUSY naming it; one that ends lets the waiting
 * snapshot through; a lock and a git `index.lock` left by a process that died are taken over and
 * removed, and the snapshot succeeds.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CheckpointError } from '../../src/checkpoint/contract.js';
import { ShadowRepository } from '../../src/checkpoint/shadow-repository.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

/** A live process other than this one, and a promise of its end once killed. */
function otherProcess() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { pid: child.pid ?? 0, stop: () => child.kill('SIGKILL'), exited };
}

async function workspaceWithRepository() {
  const workspace = temporaryFolder();
  writeTree(workspace, { 'a.txt': 'a\n' });
  const home = temporaryFolder();
  const shadow = new ShadowRepository(home, workspace);
  const tree = await shadow.snapshot();
  return { workspace, home, shadow, tree };
}

test('a live holder of loom.lock: CHECKPOINT_BUSY naming it, and the snapshot waits for its end', async (t) => {
  const { workspace, home, shadow, tree } = await workspaceWithRepository();
  const holder = otherProcess();
  t.after(holder.stop);
  writeFileSync(join(shadow.folder, 'loom.lock'), `${holder.pid}\n`);
  const impatient = new ShadowRepository(home, workspace, { lockWaitMs: 0 });
  await assert.rejects(impatient.snapshot(), (error: unknown) => {
    assert.ok(error instanceof CheckpointError);
    assert.equal(error.code, 'CHECKPOINT_BUSY');
    assert.match(error.message, new RegExp(`process ${holder.pid} `));
    return true;
  });
  const waiting = shadow.snapshot();
  holder.stop();
  await holder.exited;
  assert.equal(await waiting, tree);
  assert.equal(existsSync(join(shadow.folder, 'loom.lock')), false, 'released after the snapshot');
});

test("a dead process's loom.lock and git index.lock are taken over and the snapshot succeeds", async () => {
  const { workspace, home, shadow } = await workspaceWithRepository();
  const dead = otherProcess();
  dead.stop();
  await dead.exited;
  writeFileSync(join(shadow.folder, 'loom.lock'), `${dead.pid}\n`);
  writeFileSync(join(shadow.place.gitDir, 'index.lock'), 'left by a crash');
  writeTree(workspace, { 'b.txt': 'b\n' });
  const fresh = new ShadowRepository(home, workspace, { lockWaitMs: 0 });
  const tree = await fresh.snapshot();
  writeTree(workspace, { 'b.txt': 'changed\n' });
  await fresh.restore(tree);
  assert.deepEqual(
    (await fresh.changes(tree)).map((change) => change.path),
    [],
    'the snapshot after the crash holds b.txt as it was',
  );
  assert.equal(existsSync(join(shadow.place.gitDir, 'index.lock')), false);
});
