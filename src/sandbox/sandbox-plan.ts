/**
 * One command's sandbox plan, read from the disk as it is now: the workspace and
 * `sandbox.writable` bound (read-only in `read-only` mode), the protected paths inside the
 * workspace bound read-only (an empty placeholder for one that does not exist yet), and the
 * secrets hidden (`$HOME`'s credentials, `$LOOM_HOME`, `sandbox.hidden`). A protected path that
 * is a symbolic link is refused: a command could swap the link for a real folder. Must never
 * return a plan that leaves a protected path writable; when in doubt it refuses.
 */
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import {
  HOME_SECRETS,
  PROTECTED_PATHS,
  type SandboxNetwork,
  type SandboxPlan,
  type SandboxSettings,
} from './contract.js';
import type { PlaceholderKind } from './placeholders.js';

export interface PlanRequest {
  settings: SandboxSettings;
  /** The agent's workspace root (commands start there). */
  workspace: string;
  /** `$HOME`: `~/` paths and the built-in secrets are below it. */
  home: string | undefined;
  /** `$LOOM_HOME`, hidden whole. */
  loomHome: string;
  network: SandboxNetwork;
}

export type PlanOutcome =
  | {
      kind: 'planned';
      plan: SandboxPlan;
      /** Protected paths to make (empty) before the command starts, and hold while it runs. */
      placeholders: { path: string; kind: PlaceholderKind }[];
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
  if (settings.mode === 'workspace-write') {
    const protectedOutcome = protectedPaths(workspace);
    if (protectedOutcome.kind === 'refused') return protectedOutcome;
    for (const item of protectedOutcome.items) {
      if (!item.exists) placeholders.push({ path: item.path, kind: item.kind });
      binds.push({ path: item.path, writable: false });
    }
  }
  const hiddenFolders: string[] = [];
  const hiddenFiles: string[] = [];
  const hidden = [
    ...(home === undefined ? [] : HOME_SECRETS.map((name) => join(home, name))),
    request.loomHome,
    ...settings.hidden.map((entry) => absoluteSandboxPath(entry, workspace, home)),
  ];
  for (const entry of hidden) {
    // What does not exist has nothing to hide; a link is hidden where it leads.
    const path = realPath(entry);
    if (path === undefined || path === '/' || path === workspace) continue;
    const list = statSync(path).isDirectory() ? hiddenFolders : hiddenFiles;
    if (!list.includes(path)) list.push(path);
  }
  return {
    kind: 'planned',
    plan: { cwd: workspace, binds, hiddenFolders, hiddenFiles, network: request.network },
    placeholders,
  };
}

interface ProtectedItem {
  path: string;
  kind: PlaceholderKind;
  exists: boolean;
}

/**
 * The protected paths of `workspace`. Without `.git`, `.git` itself (a `git init` in the
 * sandbox could plant hooks); with a `.git` file (a worktree), that file (it names the folder
 * git reads hooks and config from).
 */
function protectedPaths(
  workspace: string,
): { kind: 'listed'; items: ProtectedItem[] } | { kind: 'refused'; message: string } {
  const items: ProtectedItem[] = [];
  const git = lstatOf(join(workspace, '.git'));
  const candidates: { path: string; kind: PlaceholderKind }[] = [];
  if (git === undefined) candidates.push({ path: '.git', kind: 'folder' });
  else if (git.isFile() || git.isSymbolicLink()) candidates.push({ path: '.git', kind: 'file' });
  for (const entry of PROTECTED_PATHS) {
    if (entry.path.startsWith('.git/') && (git === undefined || !git.isDirectory())) continue;
    candidates.push(entry);
  }
  for (const candidate of candidates) {
    const path = join(workspace, candidate.path);
    const stat = lstatOf(path);
    if (stat?.isSymbolicLink()) {
      return {
        kind: 'refused',
        message:
          `${candidate.path} in the workspace is a symbolic link, which the sandbox cannot keep ` +
          'read-only (a command could replace the link); make it a real folder or file, or set ' +
          'sandbox.mode: off',
      };
    }
    items.push({ path, kind: candidate.kind, exists: stat !== undefined || existsSync(path) });
  }
  return { kind: 'listed', items };
}
