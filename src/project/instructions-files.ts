/**
 * Which instruction files a session reads: the person's own (`$LOOM_HOME/AGENTS.md`), then one per
 * folder from the repository root (the nearest folder holding `.git`) down to the workspace, each
 * folder's first existing name of the list (`AGENTS.md`, else `CLAUDE.md`). Without a repository
 * only the workspace is read. It only looks (a few `stat` calls); it never reads a file's text.
 */
import { statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Tried in this order in every folder; `instructions.files` in config replaces the list. */
export const DEFAULT_INSTRUCTION_FILES: readonly string[] = ['AGENTS.md', 'CLAUDE.md'];

export interface InstructionFile {
  origin: 'personal' | 'project';
  /** Absolute. */
  path: string;
  /** What its imports must stay inside: `$LOOM_HOME` for the personal file, else the repository root (or the workspace). */
  boundary: string;
}

export interface InstructionPlaces {
  workspace: string;
  home: string;
  /** File names tried per folder, in order; the first that is a file wins. */
  names: readonly string[];
}

/** The nearest folder at or above `workspace` that holds `.git` (a folder, or a worktree's file). */
export function repositoryRoot(workspace: string): string | undefined {
  let folder = resolve(workspace);
  for (;;) {
    if (statSync(join(folder, '.git'), { throwIfNoEntry: false })) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

/** The folders from `top` down to `bottom` (which lies inside it), both included. */
function foldersBetween(top: string, bottom: string): string[] {
  const steps = relative(top, bottom).split(/[\\/]/).filter(Boolean);
  const folders = [top];
  for (const step of steps) folders.push(join(folders.at(-1) ?? top, step));
  return folders;
}

function firstFile(folder: string, names: readonly string[]): string | undefined {
  for (const name of names) {
    const path = join(folder, name);
    if (statSync(path, { throwIfNoEntry: false })?.isFile()) return path;
  }
  return undefined;
}

/** Personal first, then the farthest folder, the nearest (the workspace) last. */
export function findInstructionFiles(places: InstructionPlaces): InstructionFile[] {
  const workspace = resolve(places.workspace);
  const home = resolve(places.home);
  const root = repositoryRoot(workspace) ?? workspace;
  const found: InstructionFile[] = [];
  const personal = firstFile(home, places.names);
  if (personal) found.push({ origin: 'personal', path: personal, boundary: home });
  for (const folder of foldersBetween(root, workspace)) {
    const path = firstFile(folder, places.names);
    // $LOOM_HOME inside the repository is read once, as the person's.
    if (path && path !== personal) found.push({ origin: 'project', path, boundary: root });
  }
  return found;
}
