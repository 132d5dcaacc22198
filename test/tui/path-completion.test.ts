/**
 * `@path` completion's pieces: the mention at the cursor, the ranking of paths, and the
 * workspace listing (git's view with .gitignore respected; outside a repository a walk that
 * skips node_modules and .git).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { mentionAt, rankPaths, WorkspacePaths } from '../../src/tui/path-completion.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('mentionAt finds the @word the cursor ends, and nothing inside other words', () => {
  assert.deepEqual(mentionAt('look at @src/ap', 15), { start: 8, query: 'src/ap' });
  assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
  assert.equal(mentionAt('mail me@example.com', 19), undefined);
  assert.equal(mentionAt('@src done', 9), undefined);
});

test('rankPaths puts path prefixes first, then name prefixes, then substrings, shallow first', () => {
  const paths = [
    'docs/',
    'docs/app-notes.md',
    'src/',
    'src/app.ts',
    'app/',
    'app/main.ts',
    'lib/wrapper.ts',
  ];
  assert.deepEqual(rankPaths(paths, 'app'), [
    'app/',
    'app/main.ts',
    'docs/app-notes.md',
    'src/app.ts',
    'lib/wrapper.ts',
  ]);
  assert.deepEqual(rankPaths(paths, 'APP/M'), ['app/main.ts']);
  assert.deepEqual(rankPaths(paths, '', 3), ['app/', 'docs/', 'src/']);
});

test('a git workspace is listed by git, so .gitignore is respected', async () => {
  const root = temporaryFolder();
  execFileSync('git', ['init', '-q'], { cwd: root });
  writeTree(root, {
    '.gitignore': 'build/\n*.log\n',
    'src/index.ts': '',
    'build/out.js': '',
    'debug.log': '',
    'node_modules/lib/index.js': '',
  });
  writeTree(root, { '.gitignore': 'build/\n*.log\nnode_modules/\n' });
  const paths = await new WorkspacePaths(root).ready();
  assert.deepEqual([...paths].sort(), ['.gitignore', 'src/', 'src/index.ts']);
});

test('outside a repository the walk skips node_modules and .git, and listing is announced', async () => {
  const root = temporaryFolder();
  writeTree(root, {
    'a.txt': '',
    'deep/er/b.md': '',
    'node_modules/lib/index.js': '',
    '.git/HEAD': '',
  });
  let listed = 0;
  const workspace = new WorkspacePaths(root, () => listed++);
  assert.equal(
    workspace.current(),
    undefined,
    'the first ask starts a listing and returns at once',
  );
  const paths = await workspace.ready();
  assert.deepEqual([...paths].sort(), ['a.txt', 'deep/', 'deep/er/', 'deep/er/b.md']);
  assert.equal(listed, 1);
  assert.equal(workspace.current(), paths, 'a fresh list is reused');
});
