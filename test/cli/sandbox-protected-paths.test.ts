/**
 * Confinement probes through `bin/loom` for what runs outside the sandbox later: a sandboxed
 * command cannot write `.claude/settings.json`, `.loom/config.yaml`, `.git/hooks/pre-commit` or
 * `.git/config`, nor rename `.git` away to plant a new one, nor write the hooks folder or an
 * included config file that git's config names; it cannot read `~/.gnupg`, see the machine's
 * daemon sockets, or gain capabilities in a user namespace; and it can still commit.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bashCall } from '../helpers/scripted-turns.js';
import { runCalls, sandboxWorld } from './sandbox-fixture.js';

test('workspace-write keeps every path that runs outside the sandbox read-only', async () => {
  const world = sandboxWorld('');
  const { workspace } = world.folders;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace });
  mkdirSync(join(workspace, '.husky'));
  git('config', 'core.hooksPath', '.husky');
  writeFileSync(join(workspace, 'team.gitconfig'), '[user]\n\tname = team\n');
  git('config', 'include.path', '../team.gitconfig');
  const config = readFileSync(join(workspace, '.git/config'), 'utf8');
  mkdirSync(join(world.home, '.gnupg'));
  writeFileSync(join(world.home, '.gnupg/private.key'), world.secret);
  const probes: Record<string, string> = {
    claudeSettings: `mkdir -p .claude; echo '{"hooks":{}}' > .claude/settings.json`,
    loomConfig: "mkdir -p .loom; echo 'sandbox: {mode: off}' > .loom/config.yaml",
    preCommit: "echo '#!/bin/sh' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
    gitConfig: "echo '[core] fsmonitor = touch /tmp/evil' >> .git/config",
    renameGit: 'mv .git .git-old; mkdir -p .git-new/hooks && mv .git-new .git',
    hooksPath: 'echo evil > .husky/pre-commit',
    includedConfig: "echo '[core] hooksPath = /tmp' >> team.gitconfig",
    gnupg: `cat ${world.home}/.gnupg/private.key; ls -A ${world.home}/.gnupg`,
    sockets: 'echo "run=[$(ls -A /run /var/run/ 2>&1 | tr -d "\\n:")]"',
    userNamespace: 'unshare -r -m sh -c "mount -o remount,rw /" && echo escaped',
    commit:
      'echo work > work.txt && git add work.txt && ' +
      'git -c user.name=a -c user.email=a@example.com commit -q -m work && git log --format=%s',
  };
  const names = Object.keys(probes);
  const run = await runCalls(
    world,
    names.map((name) => bashCall(probes[name] as string)),
  );
  assert.equal(run.code, 0, run.stderr);
  const result = (name: string) => run.contents[names.indexOf(name)] ?? '';
  for (const path of [
    '.claude',
    '.loom',
    '.git/hooks/pre-commit',
    '.git-old',
    '.husky/pre-commit',
  ]) {
    assert.ok(!existsSync(join(workspace, path)), `${path} exists after the run\n${run.stdout}`);
  }
  for (const name of ['claudeSettings', 'loomConfig', 'preCommit', 'gitConfig', 'hooksPath']) {
    assert.match(result(name), /Read-only file system/, name);
  }
  assert.match(result('renameGit'), /Device or resource busy/);
  assert.equal(readFileSync(join(workspace, '.git/config'), 'utf8'), config);
  assert.equal(readFileSync(join(workspace, 'team.gitconfig'), 'utf8'), '[user]\n\tname = team\n');
  assert.ok(!result('gnupg').includes(world.secret), result('gnupg'));
  assert.match(result('sockets'), /run=\[\/run\/var\/run\/\]/);
  assert.doesNotMatch(result('userNamespace'), /escaped/);
  assert.match(result('commit'), /^work\n/);
});
