/**
 * One command's plan read from a real folder: the workspace and `sandbox.writable` bound, the
 * protected paths bound read-only (placeholders for missing ones; `.git` itself when absent or a
 * file), the secrets hidden where they exist, a symlinked protected path refused; and the
 * placeholders made and removed only while empty.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_SANDBOX_SETTINGS } from '../../src/sandbox/contract.js';
import { holdPlaceholder } from '../../src/sandbox/placeholders.js';
import { planCommand } from '../../src/sandbox/sandbox-plan.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function folders() {
  const home = temporaryFolder('loom-sandbox-home-');
  const workspace = temporaryFolder('loom-sandbox-ws-');
  const loomHome = temporaryFolder('loom-sandbox-loom-');
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.netrc'), 'machine x');
  mkdirSync(join(home, 'cache'));
  return { home, workspace, loomHome, holdsFolder: temporaryFolder('loom-sandbox-holds-') };
}

/** The plan of a command in `workspace` with the default settings and no network. */
function planDefault(request: ReturnType<typeof folders>) {
  return planCommand({ ...request, settings: DEFAULT_SANDBOX_SETTINGS, network: { kind: 'none' } });
}

test('a git workspace: hooks and config read-only, .loom, .claude and .mcp.json as placeholders', () => {
  const { home, workspace, loomHome, holdsFolder } = folders();
  mkdirSync(join(workspace, '.git/hooks'), { recursive: true });
  writeFileSync(join(workspace, '.git/config'), '');
  const outcome = planCommand({
    settings: { ...DEFAULT_SANDBOX_SETTINGS, writable: ['~/cache', '~/missing'], hidden: ['.env'] },
    workspace,
    home,
    loomHome,
    holdsFolder,
    network: { kind: 'none' },
  });
  assert.equal(outcome.kind, 'planned');
  if (outcome.kind !== 'planned') return;
  assert.deepEqual(outcome.plan.binds, [
    { path: workspace, writable: true },
    { path: join(home, 'cache'), writable: true },
    { path: join(workspace, '.git'), writable: true },
    { path: join(workspace, '.git/hooks'), writable: false },
    { path: join(workspace, '.git/config'), writable: false },
    { path: join(workspace, '.loom'), writable: false },
    { path: join(workspace, '.claude'), writable: false },
    { path: join(workspace, '.mcp.json'), writable: false },
  ]);
  assert.deepEqual(outcome.placeholders, [
    { path: join(workspace, '.loom'), kind: 'folder' },
    { path: join(workspace, '.claude'), kind: 'folder' },
    { path: join(workspace, '.mcp.json'), kind: 'file' },
  ]);
  assert.deepEqual(outcome.plan.hiddenFolders, [join(home, '.ssh'), '/run', loomHome, holdsFolder]);
  assert.deepEqual(outcome.plan.hiddenFiles, [join(home, '.netrc')]);
});

test('no .git: .git itself is protected; a worktree .git file is protected; read-only binds the workspace alone', () => {
  const { home, workspace, loomHome, holdsFolder } = folders();
  const request = { home, loomHome, holdsFolder, network: { kind: 'none' } as const };
  const bare = planCommand({ ...request, settings: DEFAULT_SANDBOX_SETTINGS, workspace });
  assert.ok(bare.kind === 'planned');
  assert.deepEqual(bare.placeholders[0], { path: join(workspace, '.git'), kind: 'folder' });
  assert.ok(!bare.plan.binds.some((bind) => bind.path.endsWith('hooks')));
  writeFileSync(join(workspace, '.git'), 'gitdir: /elsewhere');
  const worktree = planCommand({ ...request, settings: DEFAULT_SANDBOX_SETTINGS, workspace });
  assert.ok(worktree.kind === 'planned');
  assert.ok(
    worktree.plan.binds.some((bind) => bind.path === join(workspace, '.git') && !bind.writable),
  );
  const readOnly = planCommand({
    ...request,
    settings: { ...DEFAULT_SANDBOX_SETTINGS, mode: 'read-only' },
    workspace,
  });
  assert.ok(readOnly.kind === 'planned');
  assert.deepEqual(readOnly.plan.binds, [{ path: workspace, writable: false }]);
  assert.deepEqual(readOnly.placeholders, []);
});

test('an empty .git folder is no repository: all of it read-only, as without one', () => {
  const request = folders();
  const { workspace } = request;
  mkdirSync(join(workspace, '.git'));
  const outcome = planDefault(request);
  assert.ok(outcome.kind === 'planned');
  const git = outcome.plan.binds.filter((bind) => bind.path.startsWith(join(workspace, '.git')));
  assert.deepEqual(git, [{ path: join(workspace, '.git'), writable: false }]);
  assert.ok(!outcome.placeholders.some((item) => item.path.startsWith(join(workspace, '.git'))));
  assert.deepEqual(outcome.protected[0], { path: join(workspace, '.git'), kind: 'folder' });
});

test('a protected path that is a symbolic link is refused', () => {
  const request = folders();
  const { workspace } = request;
  mkdirSync(join(workspace, 'real'));
  symlinkSync(join(workspace, 'real'), join(workspace, '.claude'));
  const outcome = planDefault(request);
  assert.equal(outcome.kind, 'refused');
  assert.match(
    outcome.kind === 'refused' ? outcome.message : '',
    /\.claude .*symbolic link.*sandbox\.mode: off/,
  );
});

test('a placeholder is made once, held by every command, and removed after the last only while empty', () => {
  const workspace = temporaryFolder();
  const registry = temporaryFolder();
  const folder = join(workspace, '.claude');
  const releaseFirst = holdPlaceholder(registry, folder, 'folder');
  const releaseSecond = holdPlaceholder(registry, folder, 'folder');
  releaseFirst();
  releaseFirst();
  assert.ok(existsSync(folder), 'the second command still holds it');
  releaseSecond();
  assert.ok(!existsSync(folder));
  const file = join(workspace, '.mcp.json');
  const release = holdPlaceholder(registry, file, 'file');
  writeFileSync(file, '{"mcpServers":{}}');
  release();
  assert.ok(existsSync(file), 'a placeholder written meanwhile is kept');
  const real = join(workspace, '.loom');
  mkdirSync(real);
  holdPlaceholder(registry, real, 'folder')();
  assert.ok(existsSync(real), 'an empty folder Loom did not make stays');
});
