/**
 * The revision a worker's checkout is at (`git rev-parse HEAD` in its folder), compared with the
 * revision a job was queued at. Null outside a git checkout (or without git). Never throws.
 */
import { execFileSync } from 'node:child_process';

export function checkoutRevision(cwd: string): string | null {
  try {
    const output = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const revision = output.trim();
    return /^[0-9a-f]{7,64}$/.test(revision) ? revision : null;
  } catch {
    return null;
  }
}

/** A revision for a message: its first 12 characters, or `no git checkout`. */
export function describeRevision(revision: string | null): string {
  return revision === null ? 'no git checkout' : revision.slice(0, 12);
}
