/**
 * Empty stand-ins for protected paths that do not exist yet (`.claude/`, `.mcp.json`, ...): a
 * sandboxed command must not create them either, and bubblewrap can only bind over a path that
 * exists. A placeholder is made on disk before the command starts and bound read-only; when the
 * last command holding it ends it is removed again, but only while it is still empty (a file
 * tool may have written it meanwhile, after an `ask`). Never removes anything Loom did not make
 * as a placeholder, nor anything with content.
 *
 * Held across processes. A path a command binds is a mount point in the command's namespace,
 * and removing that path outside detaches the mount: if one Loom process removed a placeholder
 * while another's command bound it, that command could then make the protected path for real.
 * So each process holds every protected path its commands bind in a registry shared by all Loom
 * processes of the user, whatever their `$LOOM_HOME` (`holds-registry.ts`): per path, a hold file
 * for each process (a lock file holding its pid), and a `.made` marker while the path is a
 * placeholder, changed only under the path's lock. The last holder removes a made placeholder.
 * Holds of processes that died do not count; a process killed mid-command leaves an empty
 * folder or file, which every reader treats as absent, and the next holder of that path, or the
 * next process to take its first hold, removes it.
 */
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createCompleteFile } from '../core/complete-file.js';
import { acquireLockFile, isLockFileHeld, type SessionLock } from '../core/session-lock.js';
import { readyHoldsFolder } from './holds-registry.js';

export type PlaceholderKind = 'folder' | 'file';

/** How long a path's lock is waited for; another process keeps it for a few file operations. */
const LOCK_WAIT_MS = 5000;

interface Held {
  kind: PlaceholderKind;
  /** Commands of this process holding it. */
  commands: number;
  /** This process's hold file in the registry. */
  hold: SessionLock;
  registry: string;
}

/** The protected paths this process holds, in the order first held. */
const held = new Map<string, Held>();
let exitHooked = false;

/**
 * Holds `path` (of `kind`) for one command, in the registry folder `registry`: made, as a
 * placeholder, when it does not exist, and kept until the returned release is called
 * (idempotent). Throws when it cannot be made (ENOENT when its folder went missing meanwhile) or
 * the registry is refused or cannot be written.
 */
export function holdPlaceholder(registry: string, path: string, kind: PlaceholderKind): () => void {
  let entry = held.get(path);
  if (entry === undefined) {
    entry = { kind, commands: 0, hold: holdInRegistry(registry, path, kind), registry };
    held.set(path, entry);
  }
  entry.commands += 1;
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', leaveAll);
  }
  const own = entry;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    own.commands -= 1;
    if (own.commands > 0 || held.get(path) !== own) return;
    held.delete(path);
    leave(path, own);
  };
}

/** At exit every hold goes (the commands die with Loom), the last ones first. */
function leaveAll(): void {
  for (const [path, entry] of [...held].reverse()) {
    try {
      leave(path, entry);
    } catch {
      // The registry is unwritable at exit: the hold counts no more once this process is gone.
    }
  }
  held.clear();
}

/** A path's name in the registry. */
function keyOf(path: string): string {
  return createHash('sha256').update(path).digest('hex').slice(0, 32);
}

function holdInRegistry(registry: string, path: string, kind: PlaceholderKind): SessionLock {
  readyHoldsFolder(registry);
  sweepOnce(registry);
  const key = keyOf(path);
  return underLock(registry, key, () => {
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined && make(path, kind)) {
      createCompleteFile(join(registry, `${key}.made`), `${path}\n`);
    }
    return acquireLockFile(
      join(registry, `${key}.${process.pid}.hold`),
      (pid) => new Error(`process ${pid} holds this process's placeholder hold file`),
    );
  });
}

function leave(path: string, entry: Held): void {
  const { registry } = entry;
  const key = keyOf(path);
  underLock(registry, key, () => {
    entry.hold.release();
    removeIfUnheld(registry, key, () => entry.kind);
  });
}

/**
 * Under `key`'s lock: when no live process holds it and it is a placeholder Loom made, removes
 * it while still empty (`kindOf` names what it was made as) and its marker.
 */
function removeIfUnheld(
  registry: string,
  key: string,
  kindOf: (path: string) => PlaceholderKind,
): void {
  if (othersHold(registry, key)) return;
  const made = join(registry, `${key}.made`);
  if (lstatSync(made, { throwIfNoEntry: false }) === undefined) return;
  const path = readFileSync(made, 'utf8').trimEnd();
  removeIfEmpty(path, kindOf(path));
  unlinkSync(made);
}

/** What a placeholder was made as is what it is now: `removeIfEmpty` removes nothing else. */
function kindOnDisk(path: string): PlaceholderKind {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ? 'folder' : 'file';
}

/** Registries this process has swept. */
const swept = new Set<string>();

/**
 * Once per process and registry, before its first hold there: what processes that died left for
 * paths nobody holds now (a Loom killed mid-command, in any workspace) goes. Their hold files are
 * removed, and a placeholder they made is removed while still empty, as its last holder would
 * have; otherwise it would wait for the next command in that workspace, and in a workspace
 * deleted meanwhile, forever. Best effort: a path whose lock another process keeps is skipped.
 */
function sweepOnce(registry: string): void {
  if (swept.has(registry)) return;
  swept.add(registry);
  const keys = new Set<string>();
  for (const name of readdirSync(registry)) {
    const key = /^([0-9a-f]{32})\./.exec(name)?.[1];
    if (key !== undefined) keys.add(key);
  }
  for (const key of keys) {
    try {
      underLock(registry, key, () => removeIfUnheld(registry, key, kindOnDisk));
    } catch {
      // Its lock is kept, or its marker cannot be read: the path's next holder sees to it.
    }
  }
}

/** Whether a live process still holds `key`; the hold files of dead ones are removed. */
function othersHold(registry: string, key: string): boolean {
  let holding = false;
  for (const name of readdirSync(registry)) {
    if (!name.startsWith(`${key}.`) || !name.endsWith('.hold')) continue;
    const file = join(registry, name);
    if (isLockFileHeld(file)) holding = true;
    else unlinkSync(file);
  }
  return holding;
}

class LockBusy extends Error {}

/** Runs `work` holding the lock of `key`, waiting while another process has it. */
function underLock<T>(registry: string, key: string, work: () => T): T {
  const path = join(registry, `${key}.lock`);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let lock: SessionLock | undefined;
  for (let waited = 0; lock === undefined; waited += 1) {
    try {
      lock = acquireLockFile(path, (pid) => new LockBusy(String(pid)));
    } catch (error) {
      if (!(error instanceof LockBusy)) throw error;
      if (waited >= LOCK_WAIT_MS) {
        throw new Error(
          `process ${error.message} kept the sandbox's placeholder lock ${path} for ${LOCK_WAIT_MS / 1000} s; ` +
            'if that process hangs, stop it and run the command again',
        );
      }
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  try {
    return work();
  } finally {
    lock.release();
  }
}

/** Makes an empty `path`; false when something else made it first (it is real, not ours). */
function make(path: string, kind: PlaceholderKind): boolean {
  try {
    if (kind === 'folder') mkdirSync(path);
    else writeFileSync(path, '', { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function removeIfEmpty(path: string, kind: PlaceholderKind): void {
  try {
    const stat = lstatSync(path);
    if (kind === 'folder' && stat.isDirectory()) rmdirSync(path);
    else if (kind === 'file' && stat.isFile() && stat.size === 0) unlinkSync(path);
  } catch {
    // Not empty any more, or already gone: it stays as it is.
  }
}
