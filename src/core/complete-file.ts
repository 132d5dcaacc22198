/**
 * Files that appear with their whole content: the bytes go to a temporary name first, then a
 * hard link (which fails when the name exists) or a rename (which replaces) puts them in place.
 * A crash at any moment leaves either no file or a complete one, never an empty or half one; at
 * worst a `*.tmp` file of this process is left beside it.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

/** Removes a temporary file of ours; one that is already gone is fine. */
function removeTemporary(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to remove.
  }
}

function temporaryNameFor(path: string): string {
  return `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

/** Creates `path` holding `content`; false (and nothing written) when `path` already exists. */
export function createCompleteFile(path: string, content: string | Buffer): boolean {
  const temporary = temporaryNameFor(path);
  writeFileSync(temporary, content, { flag: 'wx' });
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

/** Puts `content` at `path` in one step, replacing whatever was there. */
export function replaceWithCompleteFile(path: string, content: string | Buffer): void {
  const temporary = temporaryNameFor(path);
  writeFileSync(temporary, content, { flag: 'wx' });
  try {
    renameSync(temporary, path);
  } catch (error) {
    removeTemporary(temporary);
    throw error;
  }
}
