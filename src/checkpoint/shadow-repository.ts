/**
 * The shadow repository of one workspace, `$LOOM_HOME/checkpoints/<hash of its real path>/`:
 * a snapshot is `git add -A` into its own index plus `write-tree` (a tree id, no commit; the
 * index's stat cache keeps a one-change snapshot fast), a restore is `read-tree --reset -u` (files
 * changed since are put back byte for byte with their modes, files made since are deleted, ignored
 * files are left alone). One Loom process works on it at a time (`loom.lock`, taken over from a
 * process that died, whose stale `index.lock` is then removed); a restore writes
 * `restore-in-progress` first, so one a `kill -9` cut short is found and finished. It never
 * writes through a symbolic link under `$LOOM_HOME` and never touches the workspace's `.git`.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { UserError } from '../base/errors.js';
import { replaceWithCompleteFile } from '../core/complete-file.js';
import { requireRealFolder } from '../core/safe-write.js';
import { acquireLockFile, type SessionLock } from '../core/session-lock.js';
import { type ChangedPath, CheckpointError } from './contract.js';
import { type GitPlace, git, runGit } from './git-command.js';

/** What `restore-in-progress` holds: the restore that began and has not ended. */
export interface RestoreMarker {
  tree: string;
  session?: string;
  turn?: string;
  number?: number;
  /** The workspace's tree before the restore began (absent in markers of older versions). */
  before?: string;
  started: string;
}

export const RESTORE_MARKER = 'restore-in-progress';
/** How long a snapshot waits for another Loom process's snapshot of the same workspace. */
const LOCK_WAIT_MS = 30_000;
const LOCK_RETRY_MS = 25;
/** What a shadow repository never holds, and what git's attributes must not change. */
const ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';

export function checkpointsFolder(home: string): string {
  return join(home, 'checkpoints');
}

/** The shadow repository's folder for `workspace` (by real path). */
export function shadowFolderOf(home: string, workspace: string): string {
  const real = realpathSync(workspace);
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return join(checkpointsFolder(home), hash);
}

export class ShadowRepository {
  readonly folder: string;
  readonly place: GitPlace;
  private readonly home: string;
  private readonly lockWaitMs: number;
  private ready = false;

  /** `lockWaitMs`: how long to wait for another process's snapshot or restore (default 30 s). */
  constructor(home: string, workspace: string, options: { lockWaitMs?: number } = {}) {
    this.home = home;
    this.lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
    this.folder = shadowFolderOf(home, workspace);
    this.place = { gitDir: join(this.folder, 'git'), workspace: realpathSync(workspace) };
  }

  get markerPath(): string {
    return join(this.folder, RESTORE_MARKER);
  }

  /** The restore a crash cut short, if one did (read without taking the lock). */
  unfinishedRestore(): RestoreMarker | undefined {
    try {
      return JSON.parse(readFileSync(this.markerPath, 'utf8')) as RestoreMarker;
    } catch {
      return undefined;
    }
  }

  /**
   * The workspace's tree now (made into the shadow repository). Refused (CHECKPOINT_FAILED) when
   * the workspace is `$LOOM_HOME` itself: every snapshot would hold the checkpoint store, which
   * grows with each snapshot, and the sessions being written.
   */
  snapshot(): Promise<string> {
    if (this.place.workspace === realOr(this.home)) {
      return Promise.reject(
        new CheckpointError(
          'CHECKPOINT_FAILED',
          `the workspace ${this.place.workspace} is LOOM_HOME itself, which holds the checkpoints and sessions; start loom in your project's folder, or set LOOM_HOME to a folder outside the workspace`,
        ),
      );
    }
    return this.locked(() => this.snapshotHeld());
  }

  /**
   * Puts the workspace back to `tree`; resolves with the tree it had just before. The marker is
   * written once that tree is known and before any file changes, and removed last, so a restore
   * cut short is found (`unfinishedRestore`) and finished by restoring again; finishing passes
   * the marker's `before` on, so it stays the workspace as it was before the first attempt.
   */
  restore(tree: string, about: Omit<RestoreMarker, 'tree' | 'started'> = {}): Promise<string> {
    return this.locked(async () => {
      await this.requireTree(tree);
      // The index then matches the work tree exactly, so read-tree changes just what differs.
      const now = await this.snapshotHeld();
      const before = about.before ?? now;
      const marker: RestoreMarker = { tree, ...about, before, started: new Date().toISOString() };
      replaceWithCompleteFile(this.markerPath, `${JSON.stringify(marker)}\n`);
      await git(this.place, ['read-tree', '--reset', '-u', tree]);
      rmSync(this.markerPath, { force: true });
      return before;
    });
  }

  /** What changed from tree `from` to tree `to` (default: the workspace now), path by path. */
  async changes(from: string, to?: string): Promise<ChangedPath[]> {
    const target = to ?? (await this.snapshot());
    await this.ensureReady();
    const statuses = await git(this.place, [
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--name-status',
      from,
      target,
    ]);
    const counts = await git(this.place, [
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--numstat',
      from,
      target,
    ]);
    const lines = new Map<string, { added?: number; removed?: number }>();
    for (const record of counts.toString('utf8').split('\0')) {
      const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record);
      if (!match) continue;
      const [, added = '-', removed = '-', path = ''] = match;
      lines.set(path, added === '-' ? {} : { added: Number(added), removed: Number(removed) });
    }
    const fields = statuses.toString('utf8').split('\0');
    const changed: ChangedPath[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const letter = fields[index] ?? '';
      const path = fields[index + 1] ?? '';
      const status = letter === 'A' ? 'A' : letter === 'D' ? 'D' : 'M';
      changed.push({ status, path, ...lines.get(path) });
    }
    return changed;
  }

  /** A unified diff from tree `from` to tree `to` (text; binary files as one line). */
  async patch(from: string, to: string): Promise<string> {
    await this.ensureReady();
    const text = await git(this.place, [
      'diff-tree',
      '-r',
      '-p',
      '--no-renames',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      from,
      to,
    ]);
    return text.toString('utf8');
  }

  private async requireTree(tree: string): Promise<void> {
    const type = await runGit(this.place, ['cat-file', '-t', tree]);
    if (type.code !== 0 || type.stdout.toString().trim() !== 'tree') {
      throw new CheckpointError(
        'CHECKPOINT_FAILED',
        `checkpoint ${tree} is not in the shadow repository ${this.place.gitDir} (was it removed?)`,
      );
    }
  }

  private async snapshotHeld(): Promise<string> {
    await this.ensureReady();
    this.writeExcludes();
    // With no index yet (the first snapshot), every file is new: written into one pack rather
    // than one loose object each (10,000 files: about 1 s instead of 2.3-4.3 s). Later snapshots
    // add few objects, kept loose so packs do not pile up; the setting is for `add` alone, so
    // diffs still treat these files as text.
    const bulk = existsSync(join(this.place.gitDir, 'index'))
      ? []
      : ['-c', 'core.bigFileThreshold=1'];
    const added = await runGit(this.place, [...bulk, 'add', '-A']);
    if (added.code !== 0) {
      // A file that vanished or cannot be read is skipped rather than losing the whole snapshot.
      const again = await runGit(this.place, [...bulk, 'add', '-A', '--ignore-errors']);
      if (again.stderr.includes('fatal:')) {
        throw new CheckpointError(
          'CHECKPOINT_FAILED',
          `could not snapshot ${this.place.workspace}: ${again.stderr.trim()}`,
        );
      }
    }
    return (await git(this.place, ['write-tree'])).toString('utf8').trim();
  }

  /** Makes the folders and the repository once; a crash during `git init` is redone. */
  private async ensureReady(): Promise<void> {
    if (this.ready) return;
    const parent = checkpointsFolder(this.home);
    mkdirSync(parent, { recursive: true });
    requireRealFolder(parent);
    mkdirSync(this.folder, { recursive: true });
    requireRealFolder(this.folder);
    const done = join(this.folder, 'ready');
    if (!existsSync(done)) {
      await git(this.place, ['init', '--quiet', '--bare', '--template=', this.place.gitDir], {
        bare: true,
      });
      requireRealFolder(this.place.gitDir);
      mkdirSync(join(this.place.gitDir, 'info'), { recursive: true });
      replaceWithCompleteFile(join(this.place.gitDir, 'info', 'attributes'), ATTRIBUTES);
      replaceWithCompleteFile(join(this.folder, 'workspace'), `${this.place.workspace}\n`);
      replaceWithCompleteFile(done, '1\n');
    }
    requireRealFolder(this.place.gitDir);
    requireRealFolder(join(this.place.gitDir, 'info'));
    this.ready = true;
  }

  /**
   * `info/exclude`: the user repository's own excludes, and `$LOOM_HOME` when it lies inside the
   * workspace. Rewritten only when it differs, so git's untracked cache stays valid.
   */
  private writeExcludes(): void {
    const lines = ['# written by loom: the excludes of the workspace repository'];
    const inside = relative(this.place.workspace, realOr(this.home));
    if (inside !== '' && !inside.startsWith('..') && !inside.startsWith(sep)) {
      lines.push(`/${inside.split(sep).join('/')}/`);
    }
    const userExcludes = userExcludesText(this.place.workspace);
    if (userExcludes !== undefined) lines.push(userExcludes);
    const text = `${lines.join('\n')}\n`;
    const path = join(this.place.gitDir, 'info', 'exclude');
    let current: string | undefined;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== text) replaceWithCompleteFile(path, text);
  }

  /**
   * Runs `work` holding `loom.lock`: waits while another live Loom process holds it; a lock left
   * by a process that died is taken over, and its `index.lock` (git's, ours alone) removed.
   */
  private async locked<T>(work: () => Promise<T>): Promise<T> {
    mkdirSync(this.folder, { recursive: true });
    requireRealFolder(this.folder);
    const lock = await this.takeLock();
    try {
      rmSync(join(this.place.gitDir, 'index.lock'), { force: true });
      return await work();
    } finally {
      lock.release();
    }
  }

  private async takeLock(): Promise<SessionLock> {
    const path = join(this.folder, 'loom.lock');
    const deadline = Date.now() + this.lockWaitMs;
    for (;;) {
      try {
        return acquireLockFile(
          path,
          (pid) =>
            new CheckpointError(
              'CHECKPOINT_BUSY',
              `the checkpoints of ${this.place.workspace} are busy: process ${pid} is snapshotting or restoring the workspace (lock ${path}); wait for it and try again`,
            ),
        );
      } catch (error) {
        const busy = error instanceof CheckpointError || error instanceof UserError;
        if (!busy || Date.now() > deadline) throw error;
        await wait(LOCK_RETRY_MS);
      }
    }
  }
}

/**
 * The `info/exclude` of the workspace's own repository: `.git/info/exclude`, or for a worktree
 * (or submodule) whose `.git` is a `gitdir:` file, the one in its common git dir. Read only;
 * undefined when there is none or it cannot be read.
 */
function userExcludesText(workspace: string): string | undefined {
  try {
    const dotGit = join(workspace, '.git');
    const status = lstatSync(dotGit, { throwIfNoEntry: false });
    let gitDir: string;
    if (status?.isDirectory()) {
      gitDir = dotGit;
    } else if (status?.isFile()) {
      const pointer = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
      if (pointer === undefined) return undefined;
      gitDir = resolve(workspace, pointer.trim());
      const common = join(gitDir, 'commondir');
      if (existsSync(common)) gitDir = resolve(gitDir, readFileSync(common, 'utf8').trim());
    } else {
      return undefined;
    }
    const path = join(gitDir, 'info', 'exclude');
    return lstatSync(path, { throwIfNoEntry: false })?.isFile()
      ? readFileSync(path, 'utf8')
      : undefined;
  } catch {
    return undefined;
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
