/**
 * One writer per session: an exclusive lock file `<id>.lock` beside the session file holds the
 * writer's pid. A second writer fails at once with SESSION_BUSY naming the holder; the lock of a
 * process that has died is taken over atomically. Where the process already holds a lock in the
 * same folder, a new lock is a hard link to it (the same stamp), so taking it writes no new file.
 * It must never remove a lock that a live process holds.
 */
import { linkSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createCompleteFile, replaceWithCompleteFile } from './complete-file.js';
import { UserError } from './errors.js';

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
  if (held?.size === 0) heldByFolder.delete(folder);
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
  const stamp = ownStamp();
  const busy = (holder: Holder, takingOver: boolean) =>
    new UserError(
      'SESSION_BUSY',
      `session file ${sessionPath} is busy (SESSION_BUSY): process ${holder.pid} ` +
        `${takingOver ? 'is taking over its lock' : 'is writing it'}. ` +
        `A session has one writer at a time: wait for process ${holder.pid} to end or stop it ` +
        `(lock file ${path}; the lock of a process that has died is taken over)`,
    );
  claim(path, stamp, busy);
  hold(path);
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      unhold(path);
      if (readIfPresent(path) === stamp) removeIfPresent(path);
    },
  };
}

/**
 * Makes `path` hold `stamp`. A stale lock is replaced only by the one process that holds
 * `<path>.takeover-<dead pid>` and sees the stale content still in place, so two processes can
 * never both take over the same lock; a live taker makes the others busy.
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
    claim(takeover, stamp, (taker) => busy(taker, true));
    try {
      if (readIfPresent(path) === content) {
        replaceWithCompleteFile(path, stamp);
        return;
      }
    } finally {
      rmSync(takeover, { force: true });
    }
  }
  throw new UserError(
    'SESSION_BUSY',
    `could not take the lock ${path}: other processes kept changing it (SESSION_BUSY)`,
  );
}

/**
 * Creates `path` holding `stamp`; false when it exists. While this process holds another lock in
 * the same folder (all hold the same stamp), the new one is a hard link to it: it appears
 * complete in one step without writing a new file.
 */
function createLockFile(path: string, stamp: string): boolean {
  const source = heldByFolder.get(dirname(path))?.values().next().value;
  if (source !== undefined) {
    try {
      linkSync(source, path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      // The held lock went missing under us: write the new one in full instead.
    }
  }
  return createCompleteFile(path, stamp);
}

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
