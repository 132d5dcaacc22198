/**
 * The workspace revision a queued child must run on: `git rev-parse HEAD` in a folder, or null
 * outside a git checkout. Asked once per folder and process; never throws.
 */
import { execFile } from 'node:child_process';

const revisions = new Map<string, Promise<string | null>>();

export function workspaceRevision(cwd: string): Promise<string | null> {
  let revision = revisions.get(cwd);
  if (!revision) {
    revision = new Promise((resolve) => {
      execFile('git', ['rev-parse', 'HEAD'], { cwd, windowsHide: true }, (error, stdout) => {
        const head = String(stdout).trim();
        resolve(error || !/^[0-9a-f]{7,64}$/.test(head) ? null : head);
      });
    });
    revisions.set(cwd, revision);
  }
  return revision;
}

/** A revision for a message: its first 12 characters, or `no git checkout`. */
export function describeRevision(revision: string | null): string {
  return revision === null ? 'no git checkout' : revision.slice(0, 12);
}
