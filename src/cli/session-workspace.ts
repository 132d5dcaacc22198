/**
 * The workspace of `loom run`: `--cwd`, else the current folder; a continued session keeps the
 * folder it was started in (its header's `cwd`), so without `--cwd` it works there, and a `--cwd`
 * naming another folder is refused with both folders named. It never moves a session.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import { loadSessionFile } from '../core/session-load.js';
import { SessionStore } from '../core/session-store.js';

export function resolveWorkspace(cwd: string | undefined): string {
  const folder = resolve(cwd ?? process.cwd());
  const stat = statSync(folder, { throwIfNoEntry: false });
  if (!stat?.isDirectory())
    throw new UserError('INVALID_ARGUMENT', `--cwd ${folder} is not a folder`);
  return folder;
}

/**
 * The folder a run works in. A session that cannot be read here is left to the resume, which
 * reports it in its own words.
 */
export function runWorkspace(options: { cwd?: string; session?: string }, home: string): string {
  const recorded = options.session ? recordedWorkspace(home, options.session) : undefined;
  if (recorded === undefined) return resolveWorkspace(options.cwd);
  if (options.cwd === undefined) {
    if (!statSync(recorded, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `session ${options.session} works in ${recorded}, which is no longer a folder`,
      );
    }
    return recorded;
  }
  const requested = resolveWorkspace(options.cwd);
  if (sameFolder(requested, recorded)) return recorded;
  throw new UserError(
    'INVALID_ARGUMENT',
    `session ${options.session} works in ${recorded}, not in ${requested} (--cwd): a session keeps its workspace; leave out --cwd or pass --cwd ${recorded}`,
  );
}

function recordedWorkspace(home: string, sessionId: string): string | undefined {
  try {
    return loadSessionFile(new SessionStore(home).pathOf(sessionId)).header.cwd;
  } catch {
    return undefined;
  }
}

function sameFolder(left: string, right: string): boolean {
  if (left === right) return true;
  try {
    return realpathSync(left) === realpathSync(right);
  } catch {
    return false;
  }
}
