/**
 * The file tools' guard against special files: a FIFO, socket or device is refused with an error
 * naming the path and its kind, before anything opens it (opening a FIFO blocks until a writer
 * comes, forever). Files are opened with O_NONBLOCK and checked again on the open handle, so a
 * special file swapped in after the check is refused too. Must never block on an open.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { UserError } from '../base/errors.js';
import { hasOtherLinks, replaceHardLinkedFile } from './hard-linked-file.js';

/** What a path is, in words a model and a user understand. */
export function kindOf(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'a special file';
}

export function notRegularFile(shown: string, stats: Stats): UserError {
  return new UserError(
    'INVALID_ARGUMENT',
    `${shown} is ${kindOf(stats)}, not a regular file; the file tools only read and write ` +
      'regular files and folders',
  );
}

/** The path's stats when it is a regular file or a folder; throws naming anything else. */
export async function statFileOrFolder(path: string, shown: string): Promise<Stats> {
  const stats = await stat(path);
  if (!stats.isFile() && !stats.isDirectory()) throw notRegularFile(shown, stats);
  return stats;
}

/**
 * Opens a regular file without ever blocking: O_NONBLOCK, then the handle itself is checked.
 * `flags` are the usual O_ flags (default read only). The caller closes the handle.
 */
export async function openRegularFile(
  path: string,
  shown: string,
  flags: number = constants.O_RDONLY,
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, flags | constants.O_NONBLOCK);
  } catch (error) {
    // A FIFO without a reader refuses a non-blocking open for writing.
    if ((error as NodeJS.ErrnoException).code === 'ENXIO')
      throw notRegularFile(shown, await stat(path));
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularFile(shown, stats);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Replaces the content of a regular file (made if missing); refuses a special file. A file with
 * other hard links is replaced by a new one instead (see `hard-linked-file`), so a link outside
 * the workspace keeps its content; it is checked before anything is truncated.
 */
export async function writeRegularFile(
  path: string,
  shown: string,
  content: string | Uint8Array,
  signal: AbortSignal,
): Promise<void> {
  const handle = await openRegularFile(path, shown, constants.O_WRONLY | constants.O_CREAT);
  let stats: Stats;
  try {
    stats = await handle.stat();
    if (!hasOtherLinks(stats)) {
      await handle.truncate(0);
      await handle.writeFile(content, { signal });
      return;
    }
  } finally {
    await handle.close();
  }
  await replaceHardLinkedFile(path, stats, content, signal);
}
