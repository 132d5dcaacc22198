/**
 * The workspace boundary of the built-in file tools: which folders a model may touch and how a
 * path it names becomes an absolute path inside them. Must never hand back a path that leaves
 * the allowed roots, whether by `..`, by an absolute path, or through a symbolic link.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UserError } from '../base/errors.js';
import { agentWorkspaceKey } from '../core/agent-workspace.js';
import { readingRootsOf } from '../core/reading-roots.js';
import type { ToolExecution } from '../core/tool-contract.js';

export interface Workspace {
  /** The folder relative paths resolve against; commands run here. */
  root: string;
  /** Further folders the tools may reach by absolute path (config `tools.extraRoots`). */
  extraRoots: string[];
}

export interface ResolveOptions {
  /** Refuse a path that does not exist. Default false. */
  mustExist?: boolean;
}

const maximumLinkHops = 40;

/**
 * The workspace of the agent making `execution`: `base`, with its root moved to the agent's own
 * folder when it works elsewhere (a worktree, `agentWorkspaceKey`); extra roots stay as they are.
 */
export function workspaceOf(base: Workspace, execution: Pick<ToolExecution, 'context'>): Workspace {
  const root = execution.context.find(agentWorkspaceKey);
  return root === undefined ? base : { root, extraRoots: base.extraRoots };
}

/** Resolves `path` against the workspace root; throws a `UserError` when it leaves the roots. */
export function resolveInWorkspace(
  workspace: Workspace,
  path: string,
  options: ResolveOptions = {},
): string {
  if (path.trim() === '') throw new UserError('INVALID_ARGUMENT', 'path must not be empty');
  const root = resolve(workspace.root);
  const absolute = isAbsolute(path) ? resolve(path) : resolve(root, path);
  const lexicalRoots = allowedRoots(workspace);
  const realRoots = lexicalRoots.map((allowed) => realPathOf(allowed));
  const lexicallyInside = [...lexicalRoots, ...realRoots].some((allowed) =>
    isWithin(allowed, absolute),
  );
  if (!lexicallyInside || !realRoots.some((allowed) => isWithin(allowed, realPathOf(absolute)))) {
    throw outsideError(path, root);
  }
  if (options.mustExist && !existsSync(absolute)) {
    throw new UserError('INVALID_ARGUMENT', `${path} does not exist`);
  }
  return absolute;
}

/**
 * The workspace a reading tool (`read_file`, `glob`, `grep`) of `execution` reaches: the agent's
 * own workspace (`workspaceOf`) plus the folders layers opened for reading on that scope (a
 * personal skill's folder, see core/reading-roots.ts). Writing tools keep `workspaceOf` itself.
 */
export function readingWorkspace(
  base: Workspace,
  execution: Pick<ToolExecution, 'context'>,
): Workspace {
  const workspace = workspaceOf(base, execution);
  const folders = readingRootsOf(execution.context);
  return folders.length === 0
    ? workspace
    : { ...workspace, extraRoots: [...workspace.extraRoots, ...folders] };
}

/** How a tool shows a path to the model: relative to the root when inside it, else absolute. */
export function displayPath(workspace: Workspace, absolute: string): string {
  const fromRoot = relative(resolve(workspace.root), absolute);
  if (fromRoot === '') return '.';
  if (fromRoot.startsWith('..') || isAbsolute(fromRoot)) return absolute.split(sep).join('/');
  return fromRoot.split(sep).join('/');
}

function allowedRoots(workspace: Workspace): string[] {
  return [workspace.root, ...workspace.extraRoots].map((allowed) => resolve(allowed));
}

function isWithin(parent: string, child: string): boolean {
  const fromParent = relative(parent, child);
  return fromParent === '' || (!fromParent.startsWith('..') && !isAbsolute(fromParent));
}

/**
 * The real location of `path`: the real path of its longest existing prefix plus the rest.
 * A dangling symbolic link is followed to where it points, since writing through it would land
 * there.
 */
function realPathOf(path: string, hops = 0): string {
  if (hops > maximumLinkHops) {
    throw new UserError('INVALID_ARGUMENT', `${path} has too many levels of symbolic links`);
  }
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (isSymbolicLink(path)) {
      return realPathOf(resolve(realPathOf(parent, hops + 1), readlinkSync(path)), hops + 1);
    }
    if (parent === path) return path;
    return join(realPathOf(parent, hops), basename(path));
  }
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function outsideError(path: string, root: string): UserError {
  return new UserError(
    'INVALID_ARGUMENT',
    `${path} is outside the workspace (${root}); the file tools only reach the workspace root ` +
      'and the folders listed in config `tools.extraRoots` (add a folder there to allow it)',
  );
}
