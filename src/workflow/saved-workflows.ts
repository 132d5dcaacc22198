/**
 * Saved workflows: `.loom/workflows/NAME.js` in the project and `$LOOM_HOME/workflows/NAME.js`
 * for the user, the project's file winning a shared NAME. Lists them with their header's meta
 * (read statically, never evaluated; a bad header is listed with its problem, not hidden) and
 * turns a NAME or a FILE into the file to run. It only reads: it never writes and never runs.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorMessage } from '../base/errors.js';
import { compareIgnoringCase } from '../base/text-order.js';
import { type LoadedWorkflow, WorkflowError, type WorkflowMeta } from './contract.js';
import { workflowTargetRefusal, workspacePlace } from './script-reach.js';
import { readWorkflowFile } from './workflow-file.js';

export type SavedWorkflowScope = 'project' | 'personal';

/** Where saved workflows are looked for; a folder that is absent is not searched. */
export interface SavedWorkflowPlaces {
  /** The project folder: its `.loom/workflows/`. */
  cwd?: string;
  /** `$LOOM_HOME`: its `workflows/`. */
  home?: string;
}

interface SavedWorkflowFile {
  /** The file name without `.js`: what `loom workflow run NAME` and the tool's `name` take. */
  name: string;
  path: string;
  scope: SavedWorkflowScope;
  /** A project workflow's only: the personal file of the same name it hides. */
  shadows?: string;
}

export type SavedWorkflow =
  | (SavedWorkflowFile & { kind: 'valid'; meta: WorkflowMeta })
  | (SavedWorkflowFile & { kind: 'invalid'; problem: string });

/** What a saved NAME may be: it is joined to a folder, so it can never reach outside it. */
const SAVED_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const SCRIPT_SUFFIX = '.js';

export function isSavedWorkflowName(name: string): boolean {
  return SAVED_NAME.test(name);
}

/** The folders to search, the project's first. */
export function savedWorkflowFolders(
  places: SavedWorkflowPlaces,
): Array<{ scope: SavedWorkflowScope; folder: string }> {
  const folders: Array<{ scope: SavedWorkflowScope; folder: string }> = [];
  if (places.cwd !== undefined)
    folders.push({ scope: 'project', folder: join(places.cwd, '.loom', 'workflows') });
  if (places.home !== undefined)
    folders.push({ scope: 'personal', folder: join(places.home, 'workflows') });
  return folders;
}

/** The `*.js` entries of `folder` (dot files left out); none when it does not exist. */
function scriptEntries(folder: string): Dirent[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      `cannot read the saved workflows in ${folder}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  return entries.filter(
    (entry) =>
      entry.name.endsWith(SCRIPT_SUFFIX) &&
      entry.name.length > SCRIPT_SUFFIX.length &&
      !entry.name.startsWith('.') &&
      !entry.isDirectory(),
  );
}

/** Every saved file by name, project first; a personal file a project one hides is left out. */
function savedFiles(places: SavedWorkflowPlaces): SavedWorkflowFile[] {
  const byName = new Map<string, SavedWorkflowFile>();
  for (const { scope, folder } of savedWorkflowFolders(places)) {
    for (const entry of scriptEntries(folder)) {
      const name = entry.name.slice(0, -SCRIPT_SUFFIX.length);
      const path = join(folder, entry.name);
      const known = byName.get(name);
      if (known === undefined) byName.set(name, { name, path, scope });
      else known.shadows ??= path;
    }
  }
  return [...byName.values()].sort((left, right) => compareIgnoringCase(left.name, right.name));
}

/** The names of the saved workflows, sorted; reads the folders only, no file. */
export function savedWorkflowNames(places: SavedWorkflowPlaces): string[] {
  return savedFiles(places).map((file) => file.name);
}

/** Every saved workflow with its header's meta, or the problem that keeps it from running. */
export function listSavedWorkflows(places: SavedWorkflowPlaces): SavedWorkflow[] {
  return savedFiles(places).map((file): SavedWorkflow => {
    if (!isSavedWorkflowName(file.name)) {
      return {
        ...file,
        kind: 'invalid',
        problem: `${file.path}: the name cannot be called: use letters, digits, "-", "_" and "."`,
      };
    }
    try {
      return { ...file, kind: 'valid', meta: readWorkflowFile(file.path).meta };
    } catch (error) {
      return { ...file, kind: 'invalid', problem: errorMessage(error) };
    }
  });
}

/** The file a saved NAME stands for (project first), without reading it; undefined for none. */
export function findSavedWorkflow(
  name: string,
  places: SavedWorkflowPlaces,
): { path: string; scope: SavedWorkflowScope } | undefined {
  if (!isSavedWorkflowName(name)) return undefined;
  for (const { scope, folder } of savedWorkflowFolders(places)) {
    const path = join(folder, `${name}${SCRIPT_SUFFIX}`);
    if (isFile(path)) return { path, scope };
  }
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function savedList(places: SavedWorkflowPlaces): string {
  const names = savedWorkflowNames(places);
  return names.length === 0 ? 'none' : names.join(', ');
}

export interface WorkflowTargetOptions extends SavedWorkflowPlaces {
  /** The folder a relative FILE is found from; default `cwd`, then the process's folder. */
  relativeTo?: string;
}

/**
 * A FILE or a saved NAME to the file to run: an existing file wins (relative to `relativeTo`,
 * else `cwd`), then a saved NAME (the project's, then the personal one). Throws
 * `WorkflowError('INVALID_ARGUMENT')` naming the missing file and the saved names otherwise.
 */
export function resolveWorkflowTarget(
  target: string,
  options: WorkflowTargetOptions,
): { path: string; scope?: SavedWorkflowScope } {
  if (typeof target !== 'string' || target.trim() === '') {
    throw new WorkflowError('INVALID_ARGUMENT', 'a workflow NAME or FILE is needed');
  }
  const path = resolve(options.relativeTo ?? options.cwd ?? process.cwd(), target);
  if (isFile(path)) return { path };
  const saved = findSavedWorkflow(target, options);
  if (saved !== undefined) return saved;
  throw missingTarget(target, path, options);
}

/** Neither a file at `path` nor a saved workflow named `target`: the error naming both. */
function missingTarget(target: string, path: string, places: SavedWorkflowPlaces): WorkflowError {
  const named = isSavedWorkflowName(target)
    ? `, and no saved workflow is named ${target} (saved: ${savedList(places)})`
    : ` (saved workflows: ${savedList(places)})`;
  const found = isFolder(path) ? 'it is a folder, not a file' : 'no such file';
  return new WorkflowError(
    'INVALID_ARGUMENT',
    `cannot read the workflow script ${path}: ${found}${named}`,
  );
}

/**
 * The `resolveWorkflow` of a workflow service: a script's `workflow()` target, as
 * `resolveWorkflowTarget` (a file first, then a saved NAME), except that a file must lie inside
 * the workspace (`cwd`, symlinks resolved): one outside is refused before it is looked at.
 */
export function savedWorkflowResolver(
  places: SavedWorkflowPlaces,
): (target: string, relativeTo: string | undefined) => string {
  const workspace = places.cwd ?? process.cwd();
  return (target, relativeTo) => {
    const path = workspacePlace(resolve(relativeTo ?? workspace, target), workspace);
    if (path !== undefined && isFile(path)) return path;
    const saved = findSavedWorkflow(target, places);
    if (saved !== undefined) return saved.path;
    if (path === undefined) throw workflowTargetRefusal(workspace);
    throw missingTarget(target, path, places);
  };
}

/** A saved workflow by NAME only (never a path), read and its header checked. */
export function loadSavedWorkflow(name: string, places: SavedWorkflowPlaces): LoadedWorkflow {
  const saved = findSavedWorkflow(name, places);
  if (saved === undefined) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      `no saved workflow named ${JSON.stringify(name)} (saved: ${savedList(places)})`,
    );
  }
  return readWorkflowFile(saved.path);
}
