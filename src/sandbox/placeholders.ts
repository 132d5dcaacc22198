/**
 * Empty stand-ins for protected paths that do not exist yet (`.claude/`, `.mcp.json`, ...): a
 * sandboxed command must not create them either, and bubblewrap can only bind over a path that
 * exists. A placeholder is made on disk before the command starts and bound read-only; when the
 * last command holding it ends it is removed again, but only while it is still empty (a file
 * tool may have written it meanwhile, after an `ask`). Loom killed mid-command leaves an empty
 * folder or file behind, which every reader treats as absent. Never removes anything it did not
 * make, nor anything with content.
 */
import { lstatSync, mkdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';

export type PlaceholderKind = 'folder' | 'file';

/** Commands holding each placeholder this process made, by absolute path, and their kind. */
const holders = new Map<string, number>();
const kinds = new Map<string, PlaceholderKind>();
let exitHooked = false;

/**
 * At exit every placeholder goes (if still empty): the commands holding them die with Loom, and
 * a background job's end may not be seen before the process is gone.
 */
function removeAllAtExit(): void {
  for (const [path, kind] of kinds) removeIfEmpty(path, kind);
  holders.clear();
  kinds.clear();
}

/**
 * Makes `path` (of `kind`) unless it exists, and holds it until the returned release is called
 * (idempotent). Throws when it cannot be made.
 */
export function holdPlaceholder(path: string, kind: PlaceholderKind): () => void {
  const held = holders.get(path);
  if (held === undefined) {
    try {
      if (kind === 'folder') mkdirSync(path);
      else writeFileSync(path, '', { flag: 'wx' });
    } catch (error) {
      // Made by someone else just now: it is real, not ours to remove.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return () => {};
      throw error;
    }
  }
  holders.set(path, (held ?? 0) + 1);
  kinds.set(path, kind);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', removeAllAtExit);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (holders.get(path) ?? 1) - 1;
    if (left > 0) {
      holders.set(path, left);
      return;
    }
    holders.delete(path);
    kinds.delete(path);
    removeIfEmpty(path, kind);
  };
}

/**
 * The kind of the placeholder this process holds at `path`; undefined when it holds none. A
 * command planned while another holds a placeholder binds it too, so it must hold it as well.
 */
export function heldPlaceholderKind(path: string): PlaceholderKind | undefined {
  return holders.has(path) ? kinds.get(path) : undefined;
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
