/**
 * How Loom opens the files it writes under its home (sessions, runs and journals, prompts,
 * workspaces.json, history, locks): never through a final symbolic link. Appends open with
 * O_NOFOLLOW, new files with O_EXCL|O_NOFOLLOW, and a file replaced by a rename must not be a
 * link; a link found there is LINKED_FILE naming the path, and nothing is written through it.
 */
import { closeSync, constants, lstatSync, openSync, writeSync } from 'node:fs';
import { UserError } from '../base/errors.js';

/** The error for a symbolic link where Loom writes a file of its own. */
export function linkedFileError(path: string): UserError {
  return new UserError(
    'LINKED_FILE',
    `${path} is a symbolic link; Loom never writes its files through a link (it could point ` +
      'anywhere): remove the link, or put the file itself there, and try again',
  );
}

function isSymbolicLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** Throws LINKED_FILE when `path` is a symbolic link; an absent path or any other file is fine. */
export function refuseSymbolicLink(path: string): void {
  if (isSymbolicLink(path)) throw linkedFileError(path);
}

/**
 * Throws LINKED_FILE unless `path` is a real folder: Loom's own folders of temporaries (the
 * `.incoming` lanes, the lock anchors) are never links, which would put its bytes elsewhere.
 */
export function requireRealFolder(path: string): void {
  if (lstatSync(path).isDirectory()) return;
  throw new UserError(
    'LINKED_FILE',
    `${path} is not a folder (a symbolic link?); Loom writes its files only into its own ` +
      'folders: remove it and try again',
  );
}

/** `openSync` with O_NOFOLLOW added; a link at `path` is LINKED_FILE, other failures as they are. */
function openWithoutFollowing(path: string, flags: number): number {
  try {
    return openSync(path, flags | constants.O_NOFOLLOW);
  } catch (error) {
    // ELOOP on Linux, EMLINK on the BSDs; a genuine loop in a folder of the path stays as it is.
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'ELOOP' || code === 'EMLINK') && isSymbolicLink(path)) {
      throw linkedFileError(path);
    }
    throw error;
  }
}

export interface AppendOptions {
  /** Default true: an absent file is made. False: an absent file is ENOENT. */
  create?: boolean;
  /** Default false: the descriptor can also read (from any offset; writes still go to the end). */
  read?: boolean;
}

/** A descriptor that appends to `path`; a symbolic link there is LINKED_FILE. */
export function openForAppending(path: string, options: AppendOptions = {}): number {
  const access = options.read ? constants.O_RDWR : constants.O_WRONLY;
  const create = options.create === false ? 0 : constants.O_CREAT;
  return openWithoutFollowing(path, access | constants.O_APPEND | create);
}

/** O_EXCL|O_NOFOLLOW: a new file, never one that is there already, nor a link's target. */
export const NEW_FILE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * A descriptor of a new file at `path` (EEXIST when any file or link is there already);
 * `appending` adds O_APPEND, for a descriptor that is kept to append to the file.
 */
export function openNewFile(path: string, appending = false): number {
  return openSync(path, NEW_FILE_FLAGS | (appending ? constants.O_APPEND : 0));
}

export function writeFully(descriptor: number, bytes: Buffer): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(descriptor, bytes, written);
}

/** Appends `text` to `path` (made when absent); a symbolic link there is LINKED_FILE. */
export function appendToFile(path: string, text: string): void {
  const descriptor = openForAppending(path);
  try {
    writeFully(descriptor, Buffer.from(text));
  } finally {
    closeSync(descriptor);
  }
}
