/**
 * A workflow agent's own git worktree (`agent(prompt, {isolation: 'worktree'})`): made from the
 * workspace as it is now, uncommitted and untracked changes included, on a new branch
 * `loom/RUN_ID/AGENT`; when the agent ends, what it changed is committed on that branch and the
 * folder is removed, the branch kept. The user's index, stash, branches and working tree are
 * never touched: the snapshot is written through a copy of the index. Git runs one command at a
 * time per run, without the repository's hooks or commit signing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export interface AgentWorktree {
  /** `loom/RUN_ID/AGENT`: where the agent's changes stay. */
  branch: string;
  /** The worktree's folder; removed when the agent ends. */
  folder: string;
  /** The agent's workspace: the run's workspace at the same place inside the worktree. */
  workspace: string;
}

/** What became of an agent's worktree: its branch, and why its changes were not kept if so. */
export interface WorktreeEnd {
  branch: string;
  /** Set when committing or removing failed: what happened, and where the changes are. */
  problem?: string;
}

/** The refusal when isolation cannot be had, in words the script's author can act on. */
export class WorktreeError extends Error {}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** How a commit is authored when the repository names nobody (git refuses to commit then). */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: 'Loom',
  GIT_AUTHOR_EMAIL: 'loom@localhost',
  GIT_COMMITTER_NAME: 'Loom',
  GIT_COMMITTER_EMAIL: 'loom@localhost',
};

/** Without the repository's hooks (an agent's bookkeeping runs none of them), unsigned. */
const GIT_SETTINGS = ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false'];

/** Variables that would point git at another repository or index than the one asked. */
const INHERITED_GIT_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX'];

const SLUG_LENGTH = 40;

/** A branch-safe name for an agent: its label's words, lowercase, joined by hyphens. */
export function agentSlug(label: string, fallback: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

interface Repository {
  root: string;
  /** The workspace's place in the repository (`packages/app/`, or empty at its root). */
  prefix: string;
  env: NodeJS.ProcessEnv;
}

/** The worktrees of one run: made and finished one git command at a time. */
export class RunWorktrees {
  private readonly workspace: string;
  private readonly runId: string;
  private repository: Promise<Repository> | undefined;
  /** The repository once found, for `finishNow`. */
  private found: Repository | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly names = new Set<string>();

  constructor(options: { workspace: string; runId: string }) {
    this.workspace = options.workspace;
    this.runId = options.runId;
  }

  /** A worktree for the agent named `slug`; rejects with a `WorktreeError` saying why not. */
  create(slug: string): Promise<AgentWorktree> {
    return this.serially(async () => {
      const repository = await this.repositoryOnce();
      const branch = await this.freeBranch(repository, slug);
      const base = await snapshot(
        repository,
        `loom: the workspace as agent ${slug} of ${this.runId} started`,
      );
      const folder = realpathSync(mkdtempSync(join(tmpdir(), 'loom-worktree-')));
      const added = await git(repository, [
        'worktree',
        'add',
        '--quiet',
        '-b',
        branch,
        folder,
        base,
      ]);
      if (added.code !== 0) {
        rmSync(folder, { recursive: true, force: true });
        this.names.delete(branch);
        throw new WorktreeError(`git worktree add failed: ${gitMessage(added)}`);
      }
      const workspace = resolve(folder, repository.prefix);
      // The workspace may be a folder git does not track (empty, or all of it ignored).
      mkdirSync(workspace, { recursive: true });
      return { branch, folder, workspace };
    });
  }

  /** Commits what the agent changed on its branch and removes the folder. Never rejects. */
  finish(worktree: AgentWorktree, label: string): Promise<WorktreeEnd> {
    return this.serially(async () => {
      const repository = await this.repositoryOnce();
      return drive(finishing(repository, worktree, label, this.runId), (args, options) =>
        git(repository, args, options),
      );
    }).catch((error: unknown) => kept(worktree, String(error)));
  }

  /** Removes a worktree no agent worked in, and its branch. Never rejects. */
  discard(worktree: AgentWorktree): Promise<void> {
    return this.serially(async () => {
      const repository = await this.repositoryOnce();
      await git(repository, ['worktree', 'remove', '--force', worktree.folder]);
      await git(repository, ['branch', '--quiet', '-D', worktree.branch]);
      rmSync(worktree.folder, { recursive: true, force: true });
    }).catch(() => undefined);
  }

  /**
   * `finish`, now, for a process that must exit at once: git runs synchronously, and a command
   * queued before it may still be running. Never throws.
   */
  finishNow(worktree: AgentWorktree, label: string): WorktreeEnd {
    const repository = this.found;
    if (!repository) return kept(worktree, 'the repository was not read');
    try {
      return driveSync(finishing(repository, worktree, label, this.runId), (args, options) =>
        gitSync(repository, args, options),
      );
    } catch (error) {
      return kept(worktree, String(error));
    }
  }

  private serially<Result>(step: () => Promise<Result>): Promise<Result> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private repositoryOnce(): Promise<Repository> {
    this.repository ??= findRepository(this.workspace).then((repository) => {
      this.found = repository;
      return repository;
    });
    return this.repository;
  }

  /** `loom/RUN_ID/SLUG`, with `-2`, `-3`… when this run or the repository already has it. */
  private async freeBranch(repository: Repository, slug: string): Promise<string> {
    for (let count = 1; ; count += 1) {
      const branch = `loom/${this.runId}/${count === 1 ? slug : `${slug}-${count}`}`;
      if (this.names.has(branch)) continue;
      const known = await git(repository, [
        'show-ref',
        '--verify',
        '--quiet',
        `refs/heads/${branch}`,
      ]);
      if (known.code === 0) continue;
      this.names.add(branch);
      return branch;
    }
  }
}

/**
 * Why the workspace cannot give agents worktrees (not in a git repository, no commit yet, no
 * git), or undefined when it can: a start-time check, so it runs git synchronously, twice.
 */
export function worktreeRefusal(workspace: string): string | undefined {
  const probe: Repository = { root: workspace, prefix: '', env: gitEnvironment() };
  const top = gitSync(probe, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0) {
    return `isolation: 'worktree' needs a git repository, and the workspace ${workspace} is not in one (${gitMessage(top)})`;
  }
  const head = gitSync(probe, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (head.code !== 0) {
    return `isolation: 'worktree' needs a commit to start from, and the repository ${top.stdout.trim()} has none yet: commit once`;
  }
  return undefined;
}

/** The repository the workspace is in, and how to run git there. */
async function findRepository(workspace: string): Promise<Repository> {
  const env = gitEnvironment();
  const probe: Repository = { root: workspace, prefix: '', env };
  const top = await git(probe, ['rev-parse', '--show-toplevel', '--show-prefix']);
  if (top.code !== 0) {
    throw new WorktreeError(
      `isolation: 'worktree' needs a git repository, and the workspace ${workspace} is not in one (${gitMessage(top)})`,
    );
  }
  const [root = workspace, prefix = ''] = top.stdout.split('\n');
  const repository: Repository = { root, prefix, env };
  const head = await git(repository, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (head.code !== 0) {
    throw new WorktreeError(
      `isolation: 'worktree' needs a commit to start from, and the repository ${root} has none yet: commit once`,
    );
  }
  for (const key of ['user.name', 'user.email']) {
    const set = await git(repository, ['config', '--get', key]);
    if (set.code !== 0 || set.stdout.trim() === '') {
      Object.assign(env, FALLBACK_IDENTITY);
      break;
    }
  }
  return repository;
}

/**
 * A commit of the whole tree as it is now (tracked changes, staged or not, and untracked files
 * git does not ignore) on top of HEAD, written through a copy of the index; HEAD itself when
 * nothing differs.
 */
async function snapshot(repository: Repository, message: string): Promise<string> {
  const indexPath = (await git(repository, ['rev-parse', '--git-path', 'index'])).stdout.trim();
  const index = isAbsolute(indexPath) ? indexPath : resolve(repository.root, indexPath);
  const scratch = mkdtempSync(join(tmpdir(), 'loom-index-'));
  const copy = join(scratch, 'index');
  try {
    if (existsSync(index)) copyFileSync(index, copy);
    const withCopy = { GIT_INDEX_FILE: copy };
    const added = await git(repository, ['add', '--all'], withCopy);
    if (added.code !== 0) throw new WorktreeError(`git add failed: ${gitMessage(added)}`);
    const tree = await git(repository, ['write-tree'], withCopy);
    if (tree.code !== 0) throw new WorktreeError(`git write-tree failed: ${gitMessage(tree)}`);
    const head = await git(repository, ['rev-parse', 'HEAD', 'HEAD^{tree}']);
    const [headCommit = 'HEAD', headTree] = head.stdout.split('\n');
    if (tree.stdout.trim() === headTree) return headCommit;
    const commit = await git(repository, [
      'commit-tree',
      tree.stdout.trim(),
      '-p',
      headCommit,
      '-m',
      message,
    ]);
    if (commit.code !== 0) throw new WorktreeError(`git commit-tree failed: ${gitMessage(commit)}`);
    return commit.stdout.trim();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

type GitCommand = [args: string[], options?: { cwd?: string }];

/** The steps of finishing a worktree, as git commands; the driver runs each and sends its result. */
function* finishing(
  repository: Repository,
  worktree: AgentWorktree,
  label: string,
  runId: string,
): Generator<GitCommand, WorktreeEnd, GitResult> {
  const inside = { cwd: worktree.folder };
  const added = yield [['add', '--all'], inside];
  if (added.code !== 0) return kept(worktree, `git add failed: ${gitMessage(added)}`);
  const changed = yield [['diff', '--cached', '--quiet'], inside];
  if (changed.code !== 0) {
    const message = `loom: changes of agent ${JSON.stringify(label)} (${runId})`;
    const committed = yield [['commit', '--quiet', '--no-verify', '-m', message], inside];
    if (committed.code !== 0) return kept(worktree, `git commit failed: ${gitMessage(committed)}`);
  }
  const removed = yield [
    ['worktree', 'remove', '--force', worktree.folder],
    { cwd: repository.root },
  ];
  if (removed.code !== 0) {
    return {
      branch: worktree.branch,
      problem: `its changes are committed, but the worktree ${worktree.folder} could not be removed: ${gitMessage(removed)}`,
    };
  }
  rmSync(worktree.folder, { recursive: true, force: true });
  return { branch: worktree.branch };
}

function kept(worktree: AgentWorktree, why: string): WorktreeEnd {
  return { branch: worktree.branch, problem: `${why}; its changes stay in ${worktree.folder}` };
}

async function drive<Result>(
  steps: Generator<GitCommand, Result, GitResult>,
  run: (args: string[], options?: { cwd?: string }) => Promise<GitResult>,
): Promise<Result> {
  let next = steps.next();
  while (!next.done) next = steps.next(await run(...next.value));
  return next.value;
}

function driveSync<Result>(
  steps: Generator<GitCommand, Result, GitResult>,
  run: (args: string[], options?: { cwd?: string }) => GitResult,
): Result {
  let next = steps.next();
  while (!next.done) next = steps.next(run(...next.value));
  return next.value;
}

function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  for (const name of INHERITED_GIT_VARIABLES) delete env[name];
  return env;
}

function git(
  repository: Repository,
  args: string[],
  extra: { cwd?: string; GIT_INDEX_FILE?: string } = {},
): Promise<GitResult> {
  const { cwd, ...variables } = extra;
  return new Promise((done) => {
    execFile(
      'git',
      [...GIT_SETTINGS, ...args],
      {
        cwd: cwd ?? repository.root,
        env: { ...repository.env, ...variables },
        maxBuffer: 16 << 20,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
        done({ code, stdout, stderr: missing ? 'git is not installed (or not on PATH)' : stderr });
      },
    );
  });
}

function gitSync(repository: Repository, args: string[], extra: { cwd?: string } = {}): GitResult {
  const result = spawnSync('git', [...GIT_SETTINGS, ...args], {
    cwd: extra.cwd ?? repository.root,
    env: repository.env,
    encoding: 'utf8',
  });
  const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return {
    code: result.status ?? -1,
    stdout: result.stdout ?? '',
    stderr: missing ? 'git is not installed (or not on PATH)' : (result.stderr ?? ''),
  };
}

function gitMessage(result: GitResult): string {
  const text = result.stderr.trim() || result.stdout.trim();
  return text.split('\n')[0] || `exit code ${result.code}`;
}
