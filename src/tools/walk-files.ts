/**
 * A depth-first walk that yields the regular files under a folder in name order, skipping
 * folders by name (node_modules and .git by default). Symbolic links are never followed, so a
 * walk can neither loop nor leave the folder it started in. Honours the abort signal.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const defaultSkippedFolders: readonly string[] = ['node_modules', '.git'];

export interface WalkedFile {
  absolutePath: string;
  /** Relative to the walk's start, with `/` separators. */
  relativePath: string;
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** Folder names never entered. Default `defaultSkippedFolders`. */
  skipFolders?: readonly string[];
}

export async function* walkFiles(
  folder: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkedFile> {
  const skipped = new Set(options.skipFolders ?? defaultSkippedFolders);
  const pending: Array<{ absolutePath: string; relativePath: string }> = [
    { absolutePath: folder, relativePath: '' },
  ];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const current = pending.pop() as { absolutePath: string; relativePath: string };
    const entries = await readEntries(current.absolutePath);
    const subfolders: typeof pending = [];
    for (const entry of entries) {
      const absolutePath = join(current.absolutePath, entry.name);
      const relativePath =
        current.relativePath === '' ? entry.name : `${current.relativePath}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skipped.has(entry.name)) subfolders.push({ absolutePath, relativePath });
      } else if (entry.isFile()) {
        yield { absolutePath, relativePath };
      }
    }
    pending.push(...subfolders.reverse());
  }
}

async function readEntries(folder: string): Promise<Dirent[]> {
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    return entries.sort((left, right) =>
      left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
    );
  } catch {
    return [];
  }
}
