/**
 * An agent's own git worktree: made from the workspace as it is (staged, unstaged and untracked
 * changes included) without touching the user's index, stash or branch; the agent's changes
 * committed on `loom/RUN_ID/AGENT`; the folder removed, the branch kept; and the refusal outside
 * a repository. Runs real git in temporary repositories.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentSlug, RunWorktrees, worktreeRefusal } from '../../src/workflow/agent-worktree.js';
import { gitRepository, isolatedGitEnvironment } from '../helpers/git-repository.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

Object.assign(process.env, isolatedGitEnvironment());

test('a worktree holds the dirty tree; the agent changes land on its branch; the user sees nothing move', async () => {
  const repository = gitRepository({ 'README.md': 'hello\n', 'staged.txt': 'one\n' });
  const { folder, git } = repository;
  writeFileSync(join(folder, 'README.md'), 'hello, edited\n');
  writeFileSync(join(folder, 'staged.txt'), 'two\n');
  git('add', 'staged.txt');
  writeFileSync(join(folder, 'new.txt'), 'untracked\n');
  writeFileSync(join(folder, '.gitignore'), 'ignored.log\n');
  writeFileSync(join(folder, 'ignored.log'), 'noise\n');
  const statusBefore = git('status', '--porcelain');
  const indexBefore = git('ls-files', '--stage');

  const worktrees = new RunWorktrees({ workspace: folder, runId: 'workflow-1' });
  const worktree = await worktrees.create('fix-the-readme');
  assert.equal(worktree.branch, 'loom/workflow-1/fix-the-readme');
  assert.equal(readFileSync(join(worktree.workspace, 'README.md'), 'utf8'), 'hello, edited\n');
  assert.equal(readFileSync(join(worktree.workspace, 'staged.txt'), 'utf8'), 'two\n');
  assert.equal(readFileSync(join(worktree.workspace, 'new.txt'), 'utf8'), 'untracked\n');
  assert.equal(
    existsSync(join(worktree.workspace, 'ignored.log')),
    false,
    'ignored files stay out',
  );

  writeFileSync(join(worktree.workspace, 'README.md'), 'fixed by the agent\n');
  writeFileSync(join(worktree.workspace, 'added.txt'), 'new file\n');
  const end = await worktrees.finish(worktree, 'fix the readme');
  assert.deepEqual(end, { branch: 'loom/workflow-1/fix-the-readme' });
  assert.equal(existsSync(worktree.folder), false, 'the folder is removed');

  assert.equal(git('show', `${worktree.branch}:README.md`), 'fixed by the agent');
  assert.equal(git('show', `${worktree.branch}:added.txt`), 'new file');
  assert.equal(git('show', `${worktree.branch}:new.txt`), 'untracked');
  assert.match(
    git('log', '-1', '--format=%s', worktree.branch),
    /changes of agent "fix the readme"/,
  );
  // Its first commit is the workspace as the agent found it, on top of the user's HEAD.
  assert.equal(git('rev-parse', `${worktree.branch}~2`), git('rev-parse', 'main'));
  assert.equal(git('show', `${worktree.branch}~1:README.md`), 'hello, edited');

  assert.equal(git('status', '--porcelain'), statusBefore);
  assert.equal(git('ls-files', '--stage'), indexBefore);
  assert.equal(git('stash', 'list'), '');
  assert.equal(git('branch', '--show-current'), 'main');
  assert.equal(readFileSync(join(folder, 'README.md'), 'utf8'), 'hello, edited\n');
  assert.equal(git('worktree', 'list', '--porcelain').split('\n\n').length, 1, 'no worktree left');
});

test('a clean tree starts at HEAD; an agent that changed nothing leaves its branch there', async () => {
  const { folder, git } = gitRepository();
  const worktrees = new RunWorktrees({ workspace: folder, runId: 'workflow-2' });
  const worktree = await worktrees.create('look');
  assert.deepEqual(await worktrees.finish(worktree, 'look'), { branch: 'loom/workflow-2/look' });
  assert.equal(git('rev-parse', worktree.branch), git('rev-parse', 'HEAD'));
});

test('names already taken get -2, -3; a workspace in a subfolder stays at its place', async () => {
  const { folder, git } = gitRepository();
  mkdirSync(join(folder, 'packages', 'app'), { recursive: true });
  writeFileSync(join(folder, 'packages', 'app', 'index.js'), 'x\n');
  const workspace = join(folder, 'packages', 'app');
  git('branch', 'loom/workflow-3/review');
  const worktrees = new RunWorktrees({ workspace, runId: 'workflow-3' });
  const [first, second] = await Promise.all([
    worktrees.create('review'),
    worktrees.create('review'),
  ]);
  assert.deepEqual(
    [first.branch, second.branch],
    ['loom/workflow-3/review-2', 'loom/workflow-3/review-3'],
  );
  assert.equal(first.workspace, join(first.folder, 'packages', 'app'));
  assert.equal(readFileSync(join(first.workspace, 'index.js'), 'utf8'), 'x\n');
  await Promise.all([worktrees.finish(first, 'review'), worktrees.finish(second, 'review')]);
});

test('a repository that names no committer still gets the commits (as Loom)', async () => {
  const { folder, git } = gitRepository({ 'a.txt': 'a\n' }, { identity: false });
  const worktrees = new RunWorktrees({ workspace: folder, runId: 'workflow-4' });
  writeFileSync(join(folder, 'a.txt'), 'dirty\n');
  const worktree = await worktrees.create('edit');
  writeFileSync(join(worktree.workspace, 'a.txt'), 'edited\n');
  assert.deepEqual(await worktrees.finish(worktree, 'edit'), { branch: worktree.branch });
  assert.equal(git('log', '-1', '--format=%an <%ae>', worktree.branch), 'Loom <loom@localhost>');
});

test('finishing now (a forced exit) commits and removes synchronously', async () => {
  const { folder, git } = gitRepository();
  const worktrees = new RunWorktrees({ workspace: folder, runId: 'workflow-5' });
  const worktree = await worktrees.create('quick');
  writeFileSync(join(worktree.workspace, 'late.txt'), 'late\n');
  assert.deepEqual(worktrees.finishNow(worktree, 'quick'), { branch: worktree.branch });
  assert.equal(git('show', `${worktree.branch}:late.txt`), 'late');
  assert.equal(existsSync(worktree.folder), false);
});

test('a worktree whose folder vanished is reported, the branch still named', async () => {
  const { folder } = gitRepository();
  const worktrees = new RunWorktrees({ workspace: folder, runId: 'workflow-6' });
  const worktree = await worktrees.create('gone');
  rmSync(worktree.folder, { recursive: true, force: true });
  const end = await worktrees.finish(worktree, 'gone');
  assert.equal(end.branch, worktree.branch);
  assert.match(end.problem ?? '', /git add failed: .*its changes stay in/);
});

test('outside a git repository, or before its first commit, isolation is refused saying why', async () => {
  const plain = temporaryFolder('loom-plain-');
  assert.match(
    worktreeRefusal(plain) ?? '',
    /isolation: 'worktree' needs a git repository, and the workspace .* is not in one \(.*not a git repository/,
  );
  await assert.rejects(
    new RunWorktrees({ workspace: plain, runId: 'r' }).create('x'),
    /needs a git repository/,
  );
  const empty = temporaryFolder('loom-empty-git-');
  gitRepository(); // a committed one elsewhere must not matter
  const { execFileSync } = await import('node:child_process');
  execFileSync('git', ['init', '--quiet'], { cwd: empty, env: isolatedGitEnvironment() });
  assert.match(
    worktreeRefusal(empty) ?? '',
    /needs a commit to start from.*has none yet: commit once/,
  );
  assert.equal(worktreeRefusal(gitRepository().folder), undefined);
});

test('an agent slug is its label in branch-safe words', () => {
  assert.equal(
    agentSlug('Review src/payments.ts — security!', 'agent-1'),
    'review-src-payments-ts-security',
  );
  assert.equal(agentSlug('???', 'agent-7'), 'agent-7');
  assert.equal(agentSlug('a'.repeat(80), 'x').length, 40);
});
