/**
 * What git's own config makes it run or read inside the workspace is protected like `.git/hooks`:
 * the `core.hooksPath` folder (a missing one held from its topmost missing folder), a config file
 * the repository's config includes; a hooks path naming the workspace itself is refused; and the
 * machine's socket folders are hidden.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_SANDBOX_SETTINGS } from '../../src/sandbox/contract.js';
import { planCommand } from '../../src/sandbox/sandbox-plan.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function gitWorkspace(): string {
  const workspace = temporaryFolder('loom-git-run-');
  execFileSync('git', ['init', '-q', workspace]);
  return workspace;
}

function plan(workspace: string) {
  return planCommand({
    settings: DEFAULT_SANDBOX_SETTINGS,
    workspace,
    home: temporaryFolder('loom-git-run-home-'),
    loomHome: temporaryFolder('loom-git-run-loom-'),
    holdsFolder: temporaryFolder('loom-git-run-holds-'),
    network: { kind: 'none' },
  });
}

function gitConfig(workspace: string, ...args: string[]): void {
  execFileSync('git', ['config', ...args], { cwd: workspace });
}

test('a core.hooksPath folder in the workspace is bound read-only, a missing one held by a placeholder', () => {
  const workspace = gitWorkspace();
  mkdirSync(join(workspace, '.husky'));
  gitConfig(workspace, 'core.hooksPath', '.husky');
  const present = plan(workspace);
  assert.equal(present.kind, 'planned');
  if (present.kind !== 'planned') return;
  assert.ok(present.plan.binds.some((b) => b.path === join(workspace, '.husky') && !b.writable));
  assert.ok(!present.placeholders.some((p) => p.path === join(workspace, '.husky')));
  // A change of the config is seen at the next command.
  gitConfig(workspace, 'core.hooksPath', 'tools/git/hooks');
  const missing = plan(workspace);
  assert.equal(missing.kind, 'planned');
  if (missing.kind !== 'planned') return;
  assert.deepEqual(
    missing.placeholders.filter((p) => p.path.startsWith(join(workspace, 'tools'))),
    [{ path: join(workspace, 'tools'), kind: 'folder' }],
  );
  assert.ok(missing.plan.binds.some((b) => b.path === join(workspace, 'tools') && !b.writable));
});

test('a config file the repository includes from the workspace is bound read-only', () => {
  const workspace = gitWorkspace();
  writeFileSync(join(workspace, 'team.gitconfig'), '[user]\n\tname = someone\n');
  gitConfig(workspace, 'include.path', '../team.gitconfig');
  const outcome = plan(workspace);
  assert.equal(outcome.kind, 'planned');
  if (outcome.kind !== 'planned') return;
  assert.ok(
    outcome.plan.binds.some((b) => b.path === join(workspace, 'team.gitconfig') && !b.writable),
  );
});

test('the .git folder is bound over itself, so a command cannot rename it away', () => {
  const workspace = gitWorkspace();
  const outcome = plan(workspace);
  assert.equal(outcome.kind, 'planned');
  if (outcome.kind !== 'planned') return;
  const paths = outcome.plan.binds.map((b) => `${b.path}:${b.writable}`);
  const git = paths.indexOf(`${join(workspace, '.git')}:true`);
  assert.ok(git > 0, paths.join('\n'));
  assert.ok(git < paths.indexOf(`${join(workspace, '.git/hooks')}:false`), 'before its hooks');
});

test('core.hooksPath naming the workspace itself is refused, saying how to fix it', () => {
  const workspace = gitWorkspace();
  gitConfig(workspace, 'core.hooksPath', '.');
  const outcome = plan(workspace);
  assert.equal(outcome.kind, 'refused');
  assert.match(
    outcome.kind === 'refused' ? outcome.message : '',
    /core\.hooksPath names the workspace itself.*sandbox\.mode: off/,
  );
});

test("the machine's socket folders are hidden", () => {
  const outcome = plan(gitWorkspace());
  assert.equal(outcome.kind, 'planned');
  if (outcome.kind !== 'planned') return;
  assert.ok(outcome.plan.hiddenFolders.includes('/run'), outcome.plan.hiddenFolders.join(' '));
});
