/**
 * Reads and updates `$LOOM_HOME/workspaces.json`. An update takes the lock file
 * `workspaces.json.lock` (waiting briefly while another process holds it), re-reads the file,
 * changes it and replaces it in one step (complete-file), so neither a crash nor two processes
 * at once lose an entry. It never overwrites a file it cannot read: that is WORKSPACES_CORRUPT,
 * naming the file, and the file is left for the user to fix or remove.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorMessage, LoomError } from '../base/errors.js';
import { replaceWithCompleteFile } from '../core/complete-file.js';
import { acquireSessionLock } from '../core/session-lock.js';
import type { WorkspaceEntry, WorkspaceRegistryFile } from './workspace-contract.js';
import { WorkspaceError } from './workspace-contract.js';

const REGISTRY_VERSION = 1;
/** How long an update waits for another process's lock before giving up. */
const DEFAULT_LOCK_WAIT_MS = 5000;
const LOCK_RETRY_MS = 5;

export function workspacesFile(home: string): string {
  return join(home, 'workspaces.json');
}

/** The registered workspaces; none when the file is absent; WORKSPACES_CORRUPT when unreadable. */
export function readWorkspaces(home: string): WorkspaceEntry[] {
  const path = workspacesFile(home);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw corrupt(path, errorMessage(error));
  }
  return parseRegistry(path, text);
}

/** The registry under its lock: read, write (in one step), then release. */
export interface HeldWorkspaces {
  read(): WorkspaceEntry[];
  write(workspaces: readonly WorkspaceEntry[]): void;
  release(): void;
}

export interface LockOptions {
  /** Called once when another process holds the lock and this one starts waiting. */
  onBusy?: () => void;
  /** Default 5000. */
  waitMs?: number;
}

/** Takes the registry's lock, waiting while another live process holds it (WORKSPACES_BUSY after `waitMs`). */
export function lockWorkspaces(home: string, options: LockOptions = {}): HeldWorkspaces {
  const path = workspacesFile(home);
  mkdirSync(home, { recursive: true });
  const deadline = Date.now() + (options.waitMs ?? DEFAULT_LOCK_WAIT_MS);
  let waiting = false;
  for (;;) {
    try {
      const lock = acquireSessionLock(path);
      return {
        read: () => readWorkspaces(home),
        write: (workspaces) => {
          const file: WorkspaceRegistryFile = {
            version: REGISTRY_VERSION,
            workspaces: [...workspaces],
          };
          replaceWithCompleteFile(path, `${JSON.stringify(file, null, 2)}\n`);
        },
        release: () => lock.release(),
      };
    } catch (error) {
      if (!(error instanceof LoomError) || error.code !== 'SESSION_BUSY') throw error;
      if (Date.now() >= deadline) {
        throw new WorkspaceError(
          'WORKSPACES_BUSY',
          `could not update ${path}: another process kept its lock for ${options.waitMs ?? DEFAULT_LOCK_WAIT_MS} ms (${error.message})`,
        );
      }
      if (!waiting) {
        waiting = true;
        options.onBusy?.();
      }
      pause(LOCK_RETRY_MS);
    }
  }
}

/**
 * Records that a session was made or opened in `folder` (a real path) at `now`: adds the
 * workspace or updates its `lastUsed`, under the lock. Returns its entry.
 */
export function recordWorkspaceUse(
  home: string,
  folder: string,
  now: Date = new Date(),
  options: LockOptions = {},
): WorkspaceEntry {
  const held = lockWorkspaces(home, options);
  try {
    const workspaces = held.read();
    const lastUsed = now.toISOString();
    const existing = workspaces.find((entry) => entry.path === folder);
    const entry: WorkspaceEntry = existing
      ? { ...existing, lastUsed }
      : {
          id: workspaceIdOf(folder),
          name: displayName(folder, workspaces),
          path: folder,
          lastUsed,
        };
    held.write(
      existing
        ? workspaces.map((other) => (other === existing ? entry : other))
        : [...workspaces, entry],
    );
    return entry;
  } finally {
    held.release();
  }
}

/** A stable id for a real path: the same in every process. */
export function workspaceIdOf(folder: string): string {
  return createHash('sha256').update(folder).digest('hex').slice(0, 12);
}

/** The base name; when another workspace has it, `parent/base`, then `-2`, `-3`… */
function displayName(folder: string, others: readonly WorkspaceEntry[]): string {
  const taken = new Set(others.map((entry) => entry.name));
  const base = basename(folder) || folder;
  if (!taken.has(base)) return base;
  const parent = basename(dirname(folder));
  const qualified = parent ? `${parent}/${base}` : base;
  if (!taken.has(qualified)) return qualified;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${qualified}-${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function parseRegistry(path: string, text: string): WorkspaceEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `it is not JSON (${errorMessage(error)})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw corrupt(path, 'it is not a JSON object');
  const file = data as Record<string, unknown>;
  if (file.version !== REGISTRY_VERSION)
    throw corrupt(path, `its version is ${JSON.stringify(file.version)}, not ${REGISTRY_VERSION}`);
  if (!Array.isArray(file.workspaces)) throw corrupt(path, '"workspaces" is not a list');
  return file.workspaces.map((entry: unknown, index) => {
    const fields = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >;
    for (const field of ['id', 'name', 'path', 'lastUsed'] as const) {
      if (typeof fields[field] !== 'string' || fields[field] === '')
        throw corrupt(path, `workspaces[${index}].${field} is not a non-empty string`);
    }
    return {
      id: fields.id as string,
      name: fields.name as string,
      path: fields.path as string,
      lastUsed: fields.lastUsed as string,
    };
  });
}

function corrupt(path: string, problem: string): WorkspaceError {
  return new WorkspaceError(
    'WORKSPACES_CORRUPT',
    `the workspace registry ${path} cannot be read: ${problem}. Loom leaves it as it is; fix it or remove it (it is rebuilt as sessions are made or opened)`,
  );
}

/** Blocks this thread for `milliseconds`: the lock is held only for one read and one write. */
function pause(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}
