import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { displayPath, resolveInWorkspace } from '../../src/tools/workspace.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { temporaryWorkspace } from './fake-execution.js';

const outside = /outside the workspace.*tools\.extraRoots/;

test('relative paths resolve against the root', () => {
  const workspace = temporaryWorkspace();
  assert.equal(resolveInWorkspace(workspace, 'src/a.ts'), join(workspace.root, 'src/a.ts'));
  assert.equal(resolveInWorkspace(workspace, './b/../c.txt'), join(workspace.root, 'c.txt'));
  assert.equal(resolveInWorkspace(workspace, '.'), workspace.root);
});

test('absolute paths inside the root are allowed', () => {
  const workspace = temporaryWorkspace();
  const inside = join(workspace.root, 'x.txt');
  assert.equal(resolveInWorkspace(workspace, inside), inside);
});

test('a .. escape is refused and the message names the path', () => {
  const workspace = temporaryWorkspace();
  assert.throws(
    () => resolveInWorkspace(workspace, '../x'),
    (error: Error) => {
      assert.match(error.message, /^\.\.\/x is outside the workspace/);
      assert.match(error.message, outside);
      return true;
    },
  );
  assert.throws(() => resolveInWorkspace(workspace, 'a/../../x'), outside);
});

test('an absolute path outside the roots is refused', () => {
  const workspace = temporaryWorkspace();
  assert.throws(() => resolveInWorkspace(workspace, '/etc/passwd'), outside);
});

test('a symbolic link inside the workspace that points outside is refused', () => {
  const workspace = temporaryWorkspace();
  const elsewhere = temporaryFolder();
  writeFileSync(join(elsewhere, 'secret.txt'), 'secret');
  symlinkSync(join(elsewhere, 'secret.txt'), join(workspace.root, 'link.txt'));
  assert.throws(() => resolveInWorkspace(workspace, 'link.txt'), outside);
});

test('a dangling symbolic link that points outside is refused', () => {
  const workspace = temporaryWorkspace();
  const elsewhere = temporaryFolder();
  symlinkSync(join(elsewhere, 'not-yet.txt'), join(workspace.root, 'dangling.txt'));
  assert.throws(() => resolveInWorkspace(workspace, 'dangling.txt'), outside);
});

test('a path through a symlinked folder that leads outside is refused, even for new files', () => {
  const workspace = temporaryWorkspace();
  const elsewhere = temporaryFolder();
  symlinkSync(elsewhere, join(workspace.root, 'linked'));
  assert.throws(() => resolveInWorkspace(workspace, 'linked'), outside);
  assert.throws(() => resolveInWorkspace(workspace, 'linked/new/file.txt'), outside);
});

test('a symbolic link that stays inside the workspace is allowed', () => {
  const workspace = temporaryWorkspace();
  mkdirSync(join(workspace.root, 'real'));
  symlinkSync(join(workspace.root, 'real'), join(workspace.root, 'alias'));
  assert.equal(resolveInWorkspace(workspace, 'alias/a.txt'), join(workspace.root, 'alias/a.txt'));
});

test('extra roots are allowed by absolute path', () => {
  const workspace = temporaryWorkspace();
  const extra = temporaryFolder();
  workspace.extraRoots.push(extra);
  const target = join(extra, 'notes.md');
  assert.equal(resolveInWorkspace(workspace, target), target);
  symlinkSync(extra, join(workspace.root, 'to-extra'));
  assert.equal(
    resolveInWorkspace(workspace, 'to-extra/notes.md'),
    join(workspace.root, 'to-extra/notes.md'),
  );
});

test('mustExist refuses a missing path', () => {
  const workspace = temporaryWorkspace();
  assert.throws(
    () => resolveInWorkspace(workspace, 'missing.txt', { mustExist: true }),
    /missing\.txt does not exist/,
  );
});

test('displayPath is relative inside the root and absolute elsewhere', () => {
  const workspace = temporaryWorkspace();
  assert.equal(displayPath(workspace, join(workspace.root, 'a/b.txt')), 'a/b.txt');
  assert.equal(displayPath(workspace, '/etc/hosts'), '/etc/hosts');
});
