/**
 * The shadow repository against the user's own: a snapshot and a restore leave the user's `.git`
 * byte for byte as it was (no object, no index change, no hook run) even when the environment
 * names that repository (`GIT_DIR`, `GIT_INDEX_FILE`, `GIT_OBJECT_DIRECTORY`) or a global config
 * that would convert line ends; its ignore rules (nested `.gitignore`, `info/exclude`, also a
 * worktree's) keep files out of checkpoints, and a restore leaves them alone.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ShadowRepository } from '../../src/checkpoint/shadow-repository.js';
import { writeTree } from '../helpers/file-tree.js';
import { gitRepository } from '../helpers/git-repository.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { folderState, treeEntries } from './workspace-state.js';

/** Runs `work` with `variables` set in this process's environment, then puts it back. */
async function withEnvironment<T>(variables: Record<string, string>, work: () => Promise<T>) {
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    return await work();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

test("a snapshot and a restore leave the user's repository byte for byte, whatever the environment says", async () => {
  const repository = gitRepository({ 'a.txt': 'one\n', 'crlf.txt': 'x\r\ny\r\n' });
  const userGit = join(repository.folder, '.git');
  const ran = join(temporaryFolder(), 'hook-ran');
  const hooks = temporaryFolder();
  for (const hook of [
    'pre-commit',
    'post-checkout',
    'post-index-change',
    'reference-transaction',
  ]) {
    for (const folder of [join(userGit, 'hooks'), hooks]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, hook), `#!/bin/sh\necho ${hook} >> ${ran}\n`);
      chmodSync(join(folder, hook), 0o755);
    }
  }
  const globalConfig = join(temporaryFolder(), 'gitconfig');
  writeFileSync(globalConfig, `[core]\n\tautocrlf = true\n\thooksPath = ${hooks}\n`);
  const before = folderState(userGit, []);
  const home = temporaryFolder();
  await withEnvironment(
    {
      GIT_DIR: userGit,
      GIT_INDEX_FILE: join(userGit, 'index'),
      GIT_OBJECT_DIRECTORY: join(userGit, 'objects'),
      GIT_WORK_TREE: repository.folder,
      GIT_CONFIG_GLOBAL: globalConfig,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: hooks,
    },
    async () => {
      const shadow = new ShadowRepository(home, repository.folder);
      const start = folderState(repository.folder);
      const tree = await shadow.snapshot();
      writeTree(repository.folder, { 'a.txt': 'two\n', 'b.txt': 'new\n', 'crlf.txt': 'z\n' });
      await shadow.snapshot();
      await shadow.restore(tree);
      assert.deepEqual(folderState(repository.folder), start);
    },
  );
  assert.deepEqual(folderState(userGit, []), before, "the user's .git is as it was");
  assert.equal(existsSync(ran), false, 'no hook ran');
});

test('ignored files (nested .gitignore, info/exclude) are in no checkpoint and a restore leaves them', async () => {
  const repository = gitRepository({
    'kept.txt': 'one\n',
    '.gitignore': '*.log\n',
    'sub/.gitignore': 'local.txt\n',
    'sub/tracked.txt': 'sub\n',
  });
  writeFileSync(join(repository.folder, '.git', 'info', 'exclude'), 'excluded.txt\n');
  writeTree(repository.folder, {
    'top.log': 'log one\n',
    'sub/local.txt': 'local one\n',
    'sub/deeper/x.log': 'deep log\n',
    'excluded.txt': 'excluded one\n',
  });
  const shadow = new ShadowRepository(temporaryFolder(), repository.folder);
  const tree = await shadow.snapshot();
  assert.deepEqual(treeEntries(shadow.place.gitDir, tree), [
    '100644 .gitignore',
    '100644 kept.txt',
    '100644 sub/.gitignore',
    '100644 sub/tracked.txt',
  ]);
  const ignored = {
    'top.log': 'log two\n',
    'sub/local.txt': 'local two\n',
    'sub/deeper/x.log': 'deep two\n',
    'excluded.txt': 'excluded two\n',
    'new.log': 'made later\n',
  };
  writeTree(repository.folder, { ...ignored, 'kept.txt': 'two\n' });
  await shadow.restore(tree);
  assert.equal(readFileSync(join(repository.folder, 'kept.txt'), 'utf8'), 'one\n');
  for (const [path, content] of Object.entries(ignored)) {
    assert.equal(readFileSync(join(repository.folder, path), 'utf8'), content, path);
  }
});

test("a workspace that is a git worktree: the main repository's info/exclude applies", async () => {
  const repository = gitRepository({ 'a.txt': 'one\n' });
  writeFileSync(join(repository.folder, '.git', 'info', 'exclude'), 'excluded.txt\n');
  const worktree = join(temporaryFolder(), 'tree');
  repository.git('worktree', 'add', '--quiet', worktree);
  writeTree(worktree, { 'excluded.txt': 'not for checkpoints\n', 'b.txt': 'two\n' });
  const shadow = new ShadowRepository(temporaryFolder(), worktree);
  const tree = await shadow.snapshot();
  assert.deepEqual(treeEntries(shadow.place.gitDir, tree), ['100644 a.txt', '100644 b.txt']);
});
