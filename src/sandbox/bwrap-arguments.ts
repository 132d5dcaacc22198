/**
 * A sandbox plan in, bubblewrap's arguments out (everything before `--`). Order matters and is
 * fixed here: the whole file system read-only, fresh /dev and /proc, a private /tmp; hidden
 * folders that hold a writable root before that root's bind (the bind then shows only the root);
 * the binds in the plan's order (writable roots, then read-only paths over them); the remaining hidden paths last, so nothing
 * bound later shows them again; finally every hidden folder remounted read-only. Pure.
 *
 * Always: `--die-with-parent` (the tree dies with Loom), `--unshare-pid` (when its first process
 * ends, every process in it ends; nothing of Loom's is visible), `--unshare-ipc`, and
 * `--cap-drop ALL` (as root bwrap would keep the caller's capabilities, and with them `mount`).
 * No `--new-session`: Loom starts each command in a session of its own already, without a
 * terminal, and staying in the process group keeps the group kill reaching every process.
 */
import { isAbsolute, relative } from 'node:path';
import { SANDBOX_TMP, type SandboxPlan } from './contract.js';
import { type NetworkSetup, networkSetup } from './sandbox-network.js';

/**
 * The flags every sandbox starts from: it dies with Loom, has its own process and IPC
 * namespaces, no capabilities, a read-only root, its own /dev and /proc.
 */
export const BWRAP_BASE: readonly string[] = [
  '--die-with-parent',
  '--unshare-pid',
  '--unshare-ipc',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
];

/** Whether `path` is `folder` or lies below it. */
export function isWithin(folder: string, path: string): boolean {
  const fromFolder = relative(folder, path);
  return fromFolder === '' || (!fromFolder.startsWith('..') && !isAbsolute(fromFolder));
}

export interface BwrapArguments {
  args: string[];
  network: NetworkSetup;
}

export function bwrapArguments(plan: SandboxPlan): BwrapArguments {
  const network = networkSetup(plan.network);
  const bound = plan.binds.map((bind) => bind.path);
  /** A path under the private /tmp is not there to hide unless a bind shows it again. */
  const visible = (path: string) =>
    !isWithin(SANDBOX_TMP, path) || bound.some((root) => isWithin(root, path));
  const holdsBind = (folder: string) => bound.some((root) => isWithin(folder, root));
  const hiddenFolders = plan.hiddenFolders.filter(visible);
  const hiddenFiles = plan.hiddenFiles.filter(visible);
  const early = hiddenFolders.filter(holdsBind);
  const late = hiddenFolders.filter((folder) => !holdsBind(folder));
  const args = [
    ...BWRAP_BASE,
    '--tmpfs',
    SANDBOX_TMP,
    ...early.flatMap((folder) => ['--tmpfs', folder]),
    ...plan.binds.flatMap((bind) => [bind.writable ? '--bind' : '--ro-bind', bind.path, bind.path]),
    ...late.flatMap((folder) => ['--tmpfs', folder]),
    ...hiddenFiles.flatMap((file) => ['--ro-bind', '/dev/null', file]),
    // Namespaces are flags; a bind (the proxy's socket) must come after the file system's.
    ...network.args,
    ...hiddenFolders.flatMap((folder) => ['--remount-ro', folder]),
    '--chdir',
    plan.cwd,
  ];
  return { args, network };
}
