/**
 * Writing a workspace file that has other hard links: the other names may be outside the
 * workspace, so the file is never written in place. The content goes to a new file beside it
 * (same mode, and owner where the process may set it) that a rename puts in its place: the
 * workspace name gets the new content, every other link keeps the old. Never leaves its
 * temporary behind on failure.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { NEW_FILE_FLAGS } from '../core/safe-write.js';

/** Whether a write to a file with these stats must replace it instead of writing it in place. */
export function hasOtherLinks(stats: Stats): boolean {
  return stats.nlink > 1;
}

/** Puts `content` at `path` as a new file with `stats`' mode (and owner, where allowed). */
export async function replaceHardLinkedFile(
  path: string,
  stats: Stats,
  content: string | Uint8Array,
  signal: AbortSignal,
): Promise<void> {
  // The rename replaces the name itself: through a symbolic link in the workspace, its target.
  const target = await realpath(path);
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  const handle = await open(temporary, NEW_FILE_FLAGS, 0o600);
  try {
    try {
      await handle.writeFile(content, { signal });
      await handle.chmod(stats.mode & 0o7777);
      await handle.chown(stats.uid, stats.gid).catch(() => {
        // Not allowed to give it the old owner (only root may): it is the writer's, as a new file is.
      });
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
