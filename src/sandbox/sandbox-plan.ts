/**
 * One command's sandbox plan, read from the disk as it is now: the workspace and
 * `sandbox.writable` bound (read-only in `read-only` mode), the protected paths inside the
 * workspace bound read-only (an empty placeholder for one that does not exist yet), and the
 * secrets hidden (`$HOME`'s credentials, `$LOOM_HOME`, the holds registry, `sandbox.hidden`). A protected path that
 * is a symbolic link is refused: a command could swap the link for a real folder. Must never
 * return a plan that leaves a protected path writable; when in doubt it refuses.
 */
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isWithin } from './bwrap-arguments.js';
import {
  HOME_SECRETS,
  PROTECTED_PATHS,
  type SandboxNetwork,
  type SandboxPlan,
  type SandboxSettings,
  SOCKET_FOLDERS,
} from './contract.js';
import { gitRunPaths } from './git-run-paths.js';
import type { PlaceholderKind } from './placeholders.js';

export interface PlanRequest {
  settings: SandboxSettings;
  /** The agent's workspace root (commands start there). */
  workspace: string;
  /** `$HOME`: `~/` paths and the built-in secrets are below it. */
  home: string | undefined;
  /** `$LOOM_HOME`, hidden whole. */
  loomHome: string;
  /** The registry of placeholder holds (`holds-registry.ts`), hidden whole. */
  holdsFolder: string;
  network: SandboxNetwork;
}

export type PlanOutcome =
  | {
      kind: 'planned';
      plan: SandboxPlan;
      /** Protected paths missing now: made (empty) before the command starts. */
      placeholders: { path: string; kind: PlaceholderKind }[];
      /** Every protected path the plan binds, a folder before what lies in it: held while it runs. */
      protected: { path: string; kind: PlaceholderKind }[];
    }
  | { kind: 'refused'; message: string };

/** A configured path made absolute: `~/...` below `home`, a relative one in the workspace. */
export function absoluteSandboxPath(
  path: string,
  workspace: string,
  home: string | undefined,
): string {
  if (path === '~' || path.startsWith('~/')) {
    if (home === undefined) return resolve(workspace, path);
    return resolve(home, path.slice(2));
  }
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function lstatOf(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

export function planCommand(request: PlanRequest): PlanOutcome {
  const { settings, home } = request;
  const workspace = realPath(request.workspace);
  if (workspace === undefined) {
    return { kind: 'refused', message: `the workspace ${request.workspace} does not exist` };
  }
  const binds: { path: string; writable: boolean }[] = [
    { path: workspace, writable: settings.mode === 'workspace-write' },
  ];
  for (const entry of settings.writable) {
    const path = realPath(absoluteSandboxPath(entry, workspace, home));
    // A folder that does not exist has nothing to bind; its parent stays read-only.
    if (path !== undefined && !binds.some((bind) => bind.path === path)) {
      binds.push({ path, writable: true });
    }
  }
  const placeholders: { path: string; kind: PlaceholderKind }[] = [];
  const held: { path: string; kind: PlaceholderKind }[] = [];
  if (settings.mode === 'workspace-write') {
    const protectedOutcome = protectedPaths(workspace);
    if (protectedOutcome.kind === 'refused') return protectedOutcome;
    for (const item of protectedOutcome.items) {
      if (!item.exists) placeholders.push({ path: item.path, kind: item.kind });
      held.push({ path: item.path, kind: item.kind });
      binds.push({ path: item.path, writable: item.writable === true });
    }
  }
  const hiddenFolders: string[] = [];
  const hiddenFiles: string[] = [];
  const hidden = [
    ...(home === undefined ? [] : HOME_SECRETS.map((name) => join(home, name))),
    ...SOCKET_FOLDERS,
    request.loomHome,
    request.holdsFolder,
    ...settings.hidden.map((entry) => absoluteSandboxPath(entry, workspace, home)),
  ];
  for (const entry of hidden) {
    // What does not exist has nothing to hide; a link is hidden where it leads.
    const path = realPath(entry);
    if (path === undefined || path === '/' || path === workspace) continue;
    const list = statSync(path).isDirectory() ? hiddenFolders : hiddenFiles;
    if (!list.includes(path)) list.push(path);
  }
  // With the network shared, name lookups need resolv.conf, which may live under /run.
  const resolver = realPath('/etc/resolv.conf');
  if (
    request.network.kind === 'open' &&
    resolver !== undefined &&
    hiddenFolders.some((folder) => isWithin(folder, resolver))
  ) {
    binds.push({ path: resolver, writable: false });
  }
  return {
    kind: 'planned',
    plan: { cwd: workspace, binds, hiddenFolders, hiddenFiles, network: request.network },
    placeholders,
    protected: held,
  };
}

interface ProtectedItem {
  path: string;
  kind: PlaceholderKind;
  exists: boolean;
  /** Only `.git` bound over itself, so that it cannot be renamed away (a mount point cannot). */
  writable?: boolean;
}

/**
 * `path`, or the topmost of its folders that does not exist: a placeholder can be made only where
 * the parent exists, and holding the missing folder keeps everything below it from being made.
 */
function placeholderTarget(
  workspace: string,
  path: string,
  kind: PlaceholderKind,
): { path: string; kind: PlaceholderKind } {
  let target = { path, kind };
  for (let parent = dirname(path); parent !== workspace && isWithin(workspace, parent); ) {
    if (lstatOf(parent) === undefined) target = { path: parent, kind: 'folder' };
    parent = dirname(parent);
  }
  return target;
}

/**
 * The protected paths of `workspace`. Without `.git`, `.git` itself (a `git init` in the
 * sandbox could plant hooks); with a `.git` file (a worktree), that file (it names the folder
 * git reads hooks and config from); with a `.git` folder, that folder bound over itself first
 * (renamed away, a new `.git` with hooks of its own would take its place). Then the fixed list,
 * and what git's own config makes it run or read inside the workspace (`core.hooksPath`, included
 * config files).
 */
function protectedPaths(
  workspace: string,
): { kind: 'listed'; items: ProtectedItem[] } | { kind: 'refused'; message: string } {
  const items: ProtectedItem[] = [];
  const git = lstatOf(join(workspace, '.git'));
  // An empty `.git` folder is no repository (another Loom process's placeholder, say): all of it
  // stays read-only, as when there is none.
  const repository = git?.isDirectory() === true && readdirSync(join(workspace, '.git')).length > 0;
  const candidates: { path: string; kind: PlaceholderKind }[] = [];
  if (git === undefined || (git.isDirectory() && !repository)) {
    candidates.push({ path: join(workspace, '.git'), kind: 'folder' });
  } else if (git.isFile() || git.isSymbolicLink()) {
    candidates.push({ path: join(workspace, '.git'), kind: 'file' });
  } else {
    items.push({ path: join(workspace, '.git'), kind: 'folder', exists: true, writable: true });
  }
  for (const entry of PROTECTED_PATHS) {
    if (entry.path.startsWith('.git/') && !repository) continue;
    candidates.push({ path: join(workspace, entry.path), kind: entry.kind });
  }
  for (const entry of gitRunPaths(workspace)) {
    if (entry.path === workspace) {
      return {
        kind: 'refused',
        message:
          "git's core.hooksPath names the workspace itself, so any file a command writes there " +
          'could run as a hook outside the sandbox; point core.hooksPath at a folder of its own, ' +
          'or set sandbox.mode: off',
      };
    }
    candidates.push(placeholderTarget(workspace, entry.path, entry.kind));
  }
  for (const candidate of candidates) {
    if (items.some((item) => item.path === candidate.path && item.writable !== true)) continue;
    const stat = lstatOf(candidate.path);
    if (stat?.isSymbolicLink()) {
      return {
        kind: 'refused',
        message:
          `${relative(workspace, candidate.path)} in the workspace is a symbolic link, which the ` +
          'sandbox cannot keep read-only (a command could replace the link); make it a real ' +
          'folder or file, or set sandbox.mode: off',
      };
    }
    items.push({
      path: candidate.path,
      kind: candidate.kind,
      exists: stat !== undefined || existsSync(candidate.path),
    });
  }
  return { kind: 'listed', items };
}
