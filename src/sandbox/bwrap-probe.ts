/**
 * Whether bubblewrap can run here: `bwrap` on PATH, and able to make its namespaces (AppArmor on
 * Ubuntu 24.04 blocks unprivileged user namespaces; a container may forbid them). Probed once per
 * bwrap path and process with the namespaces every command uses, and cached. Never suggests
 * running a command unconfined: the message names the two ways out (install, or `mode: off`).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { BWRAP_BASE } from './bwrap-arguments.js';

export type BwrapStatus = { ok: true; path: string } | { ok: false; message: string };

const INSTALL =
  'install bubblewrap (apt-get install bubblewrap) or set sandbox.mode: off in config.yaml to run commands without a sandbox';

const probed = new Map<string, BwrapStatus>();

/** bwrap found on `path` (a PATH value) and able to start a sandbox. */
export function bwrapStatus(path: string | undefined): BwrapStatus {
  const bwrap = findOnPath('bwrap', path);
  if (bwrap === undefined) {
    return {
      ok: false,
      message: `bash commands run in a sandbox (sandbox.mode is workspace-write or read-only), which needs bubblewrap, and bwrap is not on PATH: ${INSTALL}.`,
    };
  }
  let status = probed.get(bwrap);
  if (status === undefined) {
    status = probe(bwrap);
    probed.set(bwrap, status);
  }
  return status;
}

function probe(bwrap: string): BwrapStatus {
  const result = spawnSync(bwrap, [...BWRAP_BASE, '--unshare-net', '--', '/bin/sh', '-c', ':'], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
  });
  if (result.status === 0) return { ok: true, path: bwrap };
  const said = (result.stderr ?? '').trim() || result.error?.message || `exit ${result.status}`;
  const apparmor = /uid map|Permission denied|Operation not permitted/.test(said)
    ? ' (on Ubuntu 24.04 AppArmor blocks unprivileged user namespaces: allow them with sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap)'
    : '';
  return {
    ok: false,
    message: `bash commands run in a sandbox, but bubblewrap (${bwrap}) cannot create its namespaces here: ${said}${apparmor}. Fix that, or set sandbox.mode: off in config.yaml to run commands without a sandbox.`,
  };
}

function findOnPath(command: string, path: string | undefined): string | undefined {
  for (const folder of (path ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
