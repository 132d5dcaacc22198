/**
 * One writer per session: an exclusive lock file `<id>.lock` beside the session file holds the
 * writer's pid. A second writer fails at once with SESSION_BUSY naming the holder; the lock of a
 * process that has died is taken over atomically. Where the process already holds a lock in the
 * same folder, or keeps an anchor there, a new lock is a hard link to it (the same stamp), so
 * taking it writes no new file. It must never remove a lock that a live process holds.
 * `acquireLockFile` gives the same lock to other things with one writer (a workflow run's attempt).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  unlinkSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../base/errors.js';
import { createCompleteFile, replaceWithCompleteFile } from './complete-file.js';
import { requireRealFolder } from './safe-write.js';

export interface SessionLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock file if it is still this process's; releasing twice is harmless. */
  release(): void;
}

interface Holder {
  pid: number;
  /** The holder's start time in clock ticks after boot (Linux), to tell a reused pid apart. */
  start?: string;
}

/** Rounds of "the holder changed under us" before giving up; each needs another process's step. */
const CLAIM_ATTEMPTS = 8;
const SESSION_SUFFIX = '.jsonl';

const heldByThisProcess = new Set<string>();
/** The same locks by folder: a new lock there is a hard link to one of them (same stamp). */
const heldByFolder = new Map<string, Set<string>>();

function hold(path: string): void {
  heldByThisProcess.add(path);
  const folder = dirname(path);
  const held = heldByFolder.get(folder);
  if (held) held.add(path);
  else heldByFolder.set(folder, new Set([path]));
}

function unhold(path: string): void {
  heldByThisProcess.delete(path);
  const folder = dirname(path);
  const held = heldByFolder.get(folder);
  held?.delete(path);
  if (held?.size === 0) {
    heldByFolder.delete(folder);
    foldersLeft.set(folder, (foldersLeft.get(folder) ?? 0) + 1);
  }
}

/**
 * An anchor: a file of this thread holding its stamp, in `<folder>/.lock-anchors/`, for new
 * locks in the folder to link to while the thread holds none there. A thread that keeps taking
 * and releasing locks one at a time (a workflow's children) then creates and frees no file per
 * lock: on some file systems each new file is expensive, and more so after many were freed.
 * Made once the thread has let go of every lock in a folder `ANCHOR_AFTER` times (so a few
 * sessions one after the other never make one); removed at exit with its folder. One left by a
 * process that died is removed by the next anchor made there.
 */
const ANCHOR_FOLDER = '.lock-anchors';
const ANCHOR_SUFFIX = '.anchor';
const ANCHOR_AFTER = 3;
/** Per folder, how often this thread released its last lock there. */
const foldersLeft = new Map<string, number>();
const anchors = new Map<string, string>();
let anchorExitHookInstalled = false;
let anchorsRemoved = false;

function anchorFor(folder: string, stamp: string): string | undefined {
  // Locks taken by other exit listeners after the anchors went make none: it would stay behind.
  if (anchorsRemoved) return undefined;
  const known = anchors.get(folder);
  if (known !== undefined || (foldersLeft.get(folder) ?? 0) < ANCHOR_AFTER) return known;
  const anchorFolder = join(folder, ANCHOR_FOLDER);
  const path = join(
    anchorFolder,
    `${process.pid}-${randomBytes(6).toString('hex')}${ANCHOR_SUFFIX}`,
  );
  try {
    mkdirSync(anchorFolder, { recursive: true });
    requireRealFolder(anchorFolder);
    removeDeadAnchors(anchorFolder);
    if (!createCompleteFile(path, stamp)) return undefined;
    keepStampFile(folder, path);
  } catch {
    // No anchor (a read-only folder, say): locks there are written in full, as without one.
    foldersLeft.delete(folder);
    return undefined;
  }
  anchors.set(folder, path);
  if (!anchorExitHookInstalled) {
    anchorExitHookInstalled = true;
    process.on('exit', removeAnchors);
  }
  return path;
}

/**
 * Per folder, the file this thread last wrote its stamp to there (an anchor, or a lock written
 * in full), kept open: its inode is then never another file's, so a lock with that inode is a
 * hard link to it, this thread's, known without reading the lock. Closed only at exit.
 */
const stampFiles = new Map<string, { descriptor: number; device: bigint; inode: bigint }>();

function keepStampFile(folder: string, path: string): void {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch {
    // Not kept (out of descriptors, say): releasing a lock reads it back instead.
    return;
  }
  const { dev, ino } = fstatSync(descriptor, { bigint: true });
  const previous = stampFiles.get(folder);
  stampFiles.set(folder, { descriptor, device: dev, inode: ino });
  if (previous !== undefined) closeSync(previous.descriptor);
}

/** Whether the lock at `path` is a hard link to this thread's stamp file in its folder. */
function linksOwnStampFile(path: string): boolean {
  const kept = stampFiles.get(dirname(path));
  if (kept === undefined) return false;
  const status = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return status?.ino === kept.inode && status.dev === kept.device;
}

/** At exit: the anchors, and their folder once no other process keeps one there. */
function removeAnchors(): void {
  anchorsRemoved = true;
  for (const path of anchors.values()) {
    removeIfPresent(path);
    try {
      rmdirSync(dirname(path));
    } catch {
      // Another process's anchor is still there (or the folder is gone): leave it.
    }
  }
  anchors.clear();
}

/** Anchors of processes that have died; those of this process's other threads stay. */
function removeDeadAnchors(anchorFolder: string): void {
  for (const name of readdirSync(anchorFolder)) {
    if (!name.endsWith(ANCHOR_SUFFIX) || name.startsWith(`${process.pid}-`)) continue;
    const path = join(anchorFolder, name);
    const content = readIfPresent(path);
    if (content !== undefined && !isAlive(parseStamp(content), path)) removeIfPresent(path);
  }
}

/** The lock file of a session file: `<folder>/<id>.lock` for `<folder>/<id>.jsonl`. */
export function lockPathOf(sessionPath: string): string {
  const base = sessionPath.endsWith(SESSION_SUFFIX)
    ? sessionPath.slice(0, -SESSION_SUFFIX.length)
    : sessionPath;
  return resolve(`${base}.lock`);
}

/** Takes the writer lock of `sessionPath`, or throws SESSION_BUSY naming the live holder's pid. */
export function acquireSessionLock(sessionPath: string): SessionLock {
  const path = lockPathOf(sessionPath);
  return acquireLockFile(
    path,
    (pid, takingOver) =>
      new UserError(
        'SESSION_BUSY',
        `session file ${sessionPath} is busy (SESSION_BUSY): process ${pid} ` +
          `${takingOver ? 'is taking over its lock' : 'is writing it'}. ` +
          `A session has one writer at a time: wait for process ${pid} to end or stop it ` +
          `(lock file ${path}; the lock of a process that has died is taken over)`,
      ),
  );
}

/**
 * Takes the lock file `path` by the same rules (one live holder; a dead holder's lock is taken
 * over), for other things with one writer at a time. `busy` makes the error for a live holder:
 * `takingOver` when that process is in the middle of taking over a dead holder's lock.
 */
export function acquireLockFile(
  path: string,
  busy: (pid: number, takingOver: boolean) => Error,
): SessionLock {
  path = resolve(path);
  const stamp = ownStamp();
  claim(path, stamp, (holder, takingOver) => busy(holder.pid, takingOver));
  hold(path);
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      unhold(path);
      if (linksOwnStampFile(path) || readIfPresent(path) === stamp) removeIfPresent(path);
    },
  };
}

/**
 * Whether the lock file at `path` is held: it is there and its holder runs (this process: it
 * holds it still). False for an absent or unreadable-as-a-stamp file, and for a dead holder's.
 */
export function isLockFileHeld(path: string): boolean {
  const content = readIfPresent(path);
  return content !== undefined && isAlive(parseStamp(content), resolve(path));
}

/** Thrown while claiming a takeover file another live process holds; names that taker. */
class TakerBusy extends Error {
  constructor(readonly taker: Holder) {
    super(`process ${taker.pid} holds the takeover file`);
  }
}

/**
 * Makes `path` hold `stamp`. A stale lock is replaced only by the one process that holds
 * `<path>.takeover-<dead pid>` and sees the stale content still in place, so two processes can
 * never both take over the same lock. A live taker makes the others busy while the stale lock is
 * still in place; once it is not, they look again and name whoever holds it now.
 */
function claim(
  path: string,
  stamp: string,
  busy: (holder: Holder, takingOver: boolean) => Error,
): void {
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    if (createLockFile(path, stamp)) return;
    const content = readIfPresent(path);
    if (content === undefined) continue;
    const holder = parseStamp(content);
    if (isAlive(holder, path)) throw busy(holder, false);
    const takeover = `${path}.takeover-${holder.pid}`;
    try {
      claim(takeover, stamp, (taker) => new TakerBusy(taker));
    } catch (error) {
      if (!(error instanceof TakerBusy)) throw error;
      // A live taker wins only if the stale lock is still in place; if another process took it
      // over before that taker came, the new holder is the one to name: look again.
      if (readIfPresent(path) !== content) continue;
      throw busy(error.taker, true);
    }
    try {
      if (readIfPresent(path) === content) {
        replaceWithCompleteFile(path, stamp);
        return;
      }
    } finally {
      removeIfPresent(takeover);
    }
  }
  throw new UserError(
    'SESSION_BUSY',
    `could not take the lock ${path}: other processes kept changing it (SESSION_BUSY)`,
  );
}

/**
 * Creates `path` holding `stamp`; false when it exists. Where this thread keeps an anchor or
 * holds another lock in the same folder (all hold the same stamp), the new one is a hard link to
 * it (to the anchor first): it appears complete in one step without writing a new file.
 */
function createLockFile(path: string, stamp: string): boolean {
  const folder = dirname(path);
  const anchor = anchorFor(folder, stamp);
  const source = anchor ?? heldByFolder.get(folder)?.values().next().value;
  if (source !== undefined) {
    try {
      linkSync(source, path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      // The anchor or held lock went missing under us: write the new one in full instead.
      if (anchor !== undefined) anchors.delete(folder);
    }
  }
  if (!createCompleteFile(path, stamp)) return false;
  keepStampFile(folder, path);
  return true;
}

/** Removes the file `path` if it is there (`unlinkSync`: `rmSync` loads a module at first use). */
function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** This process's stamp, read from /proc once: neither the pid nor the start time changes. */
let cachedStamp: string | undefined;

function ownStamp(): string {
  if (cachedStamp === undefined) {
    const start = startTicks(process.pid);
    cachedStamp = `${process.pid}${start === undefined ? '' : ` ${start}`}\n`;
  }
  return cachedStamp;
}

function parseStamp(content: string): Holder {
  const match = /^(\d+)(?: (\d+))?\s*$/.exec(content);
  if (!match) return { pid: 0 };
  const holder: Holder = { pid: Number(match[1]) };
  if (match[2] !== undefined) holder.start = match[2];
  return holder;
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether the holder still runs: not gone, not a zombie, and not a newer process with its pid. */
function isAlive(holder: Holder, path: string): boolean {
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return false;
  if (holder.pid === process.pid) return heldByThisProcess.has(path);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user. Anything else (ESRCH, a pid out of range) means gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const status = processStatus(holder.pid);
  if (status === undefined) return true;
  if (status.state === 'Z' || status.state === 'X') return false;
  return holder.start === undefined || holder.start === status.start;
}

function startTicks(pid: number): string | undefined {
  return processStatus(pid)?.start;
}

/** State and start time from `/proc/PID/stat`; undefined where there is no such file. */
function processStatus(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  if (state === undefined || start === undefined) return undefined;
  return { state, start };
}
