/**
 * Files that appear with their whole content: the bytes go to a temporary name first, then a
 * hard link (which fails when the name exists) or a rename (which replaces) puts them in place.
 * A crash at any moment leaves either no file or a complete one, never an empty or half one; at
 * worst a `*.tmp` file of this process is left beside it (or, for a file made in the background,
 * in the `.incoming` folder beside it). Temporaries open with O_EXCL|O_NOFOLLOW, a lane folder
 * must be a real folder, and a file replaced must not be a symbolic link (see `safe-write`).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, linkSync, mkdir, open, renameSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  NEW_FILE_FLAGS,
  openNewFile,
  refuseSymbolicLink,
  requireRealFolder,
  writeFully,
} from './safe-write.js';

// The callback API, not `fs/promises`: a descriptor the caller keeps must be a plain number, never
// a `FileHandle`, which closes its descriptor when it is garbage collected.
const openInBackground = promisify(open);
const mkdirInBackground = promisify(mkdir);

/** Removes a temporary file of ours; one that is already gone is fine. */
function removeTemporary(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to remove.
  }
}

/** Random once per module instance (a worker thread has its own), then counted: no name repeats. */
const temporaryPrefix = `${process.pid}-${randomBytes(4).toString('hex')}`;
let temporaryCount = 0;

function temporaryNameFor(path: string): string {
  temporaryCount += 1;
  return `${path}.${temporaryPrefix}-${temporaryCount.toString(36)}.tmp`;
}

const bytesOf = (content: string | Buffer): Buffer =>
  typeof content === 'string' ? Buffer.from(content) : content;

/** Makes the temporary `path` holding `content` (O_EXCL|O_NOFOLLOW: never through a link). */
function writeTemporary(path: string, content: string | Buffer): void {
  const descriptor = openNewFile(path);
  try {
    writeFully(descriptor, bytesOf(content));
  } catch (error) {
    closeSync(descriptor);
    removeTemporary(path);
    throw error;
  }
  closeSync(descriptor);
}

/** Creates `path` holding `content`; false (and nothing written) when `path` already exists. */
export function createCompleteFile(path: string, content: string | Buffer): boolean {
  const temporary = temporaryNameFor(path);
  writeTemporary(temporary, content);
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    removeTemporary(temporary);
  }
}

/**
 * Like `createCompleteFile`, but keeps the file open: returns a descriptor that appends to it
 * (the temporary's, which is the same file), or undefined (and nothing written) when `path`
 * already exists. Saves opening the file a second time.
 */
export function createCompleteFileForAppending(
  path: string,
  content: string | Buffer,
): number | undefined {
  const temporary = temporaryNameFor(path);
  const descriptor = openNewFile(temporary, true);
  let linked = false;
  try {
    writeFully(descriptor, bytesOf(content));
    linkSync(temporary, path);
    linked = true;
    return descriptor;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  } finally {
    if (!linked) closeSync(descriptor);
    removeTemporary(temporary);
  }
}

/**
 * Lanes for files made in the background: at most this many are made at once (the thread
 * pool's size), each in its own folder, `.incoming/<lane>` beside the file. Making a file holds
 * its folder's lock while the file system looks for a free inode (on some file systems most of
 * the cost), so files started in one folder would only queue behind each other, and the calling
 * thread would wait on that lock to link or unlink anything beside the file. A lane is one
 * file's until it is in place, so the calling thread's steps in it wait on no other file.
 */
const BACKGROUND_LANES = 4;
const INCOMING_FOLDER = '.incoming';
const freeLanes = Array.from({ length: BACKGROUND_LANES }, (_, lane) => lane);
const waitingForLane: Array<(lane: number) => void> = [];
const madeLaneFolders = new Set<string>();

/** The caller's part in a file made in the background; both run on the calling thread. */
export interface BackgroundFile {
  /** Once the temporary is open: the bytes the file appears with, or undefined to make no file. */
  content(): string | Buffer | undefined;
  /** At once when the file is in place; must not throw. The caller owns `descriptor` (appends). */
  created(descriptor: number): void;
}

/**
 * `createCompleteFileForAppending` for a caller that must not wait on a slow file system: the
 * thread pool opens the temporary (making a file is the slow step on some file systems); the
 * quick rest (write, link, unlink) follows on the calling thread, so each file costs one trip to
 * the pool. Resolves `exists` (nothing written) when `path` already exists, `abandoned` when
 * `content` gave none.
 */
export async function createCompleteFileForAppendingInBackground(
  path: string,
  file: BackgroundFile,
): Promise<'created' | 'exists' | 'abandoned'> {
  const lane =
    freeLanes.pop() ?? (await new Promise<number>((resolve) => waitingForLane.push(resolve)));
  try {
    return await createInLane(path, file, join(dirname(path), INCOMING_FOLDER, String(lane)));
  } finally {
    const next = waitingForLane.shift();
    if (next) next(lane);
    else freeLanes.push(lane);
  }
}

/** `openNewFile(path, true)`'s flags, for the thread pool. */
const APPENDING_NEW_FILE = NEW_FILE_FLAGS | constants.O_APPEND;

/**
 * Makes a lane folder and checks that neither it nor `.incoming` is a symbolic link: a linked
 * folder would put the file's bytes wherever the link points before they reach their place.
 */
async function makeLaneFolder(folder: string): Promise<void> {
  await mkdirInBackground(folder, { recursive: true });
  requireRealFolder(dirname(folder));
  requireRealFolder(folder);
}

async function openInLane(folder: string, name: string): Promise<[string, number]> {
  const temporary = join(folder, name);
  if (!madeLaneFolders.has(folder)) {
    await makeLaneFolder(folder);
    madeLaneFolders.add(folder);
  }
  try {
    return [temporary, await openInBackground(temporary, APPENDING_NEW_FILE)];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // The folder was removed since it was made: make it again.
    await makeLaneFolder(folder);
    return [temporary, await openInBackground(temporary, APPENDING_NEW_FILE)];
  }
}

async function createInLane(
  path: string,
  file: BackgroundFile,
  folder: string,
): Promise<'created' | 'exists' | 'abandoned'> {
  const [temporary, descriptor] = await openInLane(folder, basename(temporaryNameFor(path)));
  let linked = false;
  try {
    const content = file.content();
    if (content === undefined) return 'abandoned';
    writeFully(descriptor, bytesOf(content));
    linkSync(temporary, path);
    linked = true;
    file.created(descriptor);
    return 'created';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw error;
  } finally {
    if (!linked) closeSync(descriptor);
    removeTemporary(temporary);
  }
}

/**
 * Puts `content` at `path` in one step, replacing the file there; a symbolic link there is
 * LINKED_FILE (and left as it is), never replaced or written through.
 */
export function replaceWithCompleteFile(path: string, content: string | Buffer): void {
  refuseSymbolicLink(path);
  const temporary = temporaryNameFor(path);
  writeTemporary(temporary, content);
  try {
    renameSync(temporary, path);
  } catch (error) {
    removeTemporary(temporary);
    throw error;
  }
}
