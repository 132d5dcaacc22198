/**
 * The workspace of `loom run`: `--cwd`, else the current folder. A continued session is opened
 * only in the workspace its header records (compared by real path): from any other folder it is
 * refused with both folders named and how to run it from the right one. It never moves a session.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../base/errors.js';
import { loadSessionFile } from '../core/session-load.js';
import { SessionStore } from '../core/session-store.js';
import { checkSessionWorkspace } from '../interaction/workspace-check.js';

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
export function runWorkspace(
  options: { cwd?: string; session?: string },
  home: string,
  /** How to run it from the right folder; default: with `loom run --session`. */
  howToFix?: (folder: string) => string,
): string {
  const recorded = options.session ? recordedWorkspace(home, options.session) : undefined;
  if (recorded === undefined || options.session === undefined) return resolveWorkspace(options.cwd);
  if (!statSync(recorded, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `session ${options.session} works in ${recorded}, which is no longer a folder`,
    );
  }
  const current = resolveWorkspace(options.cwd);
  const sessionId = options.session;
  checkSessionWorkspace({
    sessionId,
    recorded,
    current,
    currentSource: options.cwd === undefined ? 'the current folder' : '--cwd',
    howToFix:
      howToFix ??
      ((folder) =>
        `run it from there (cd ${folder}) or pass --cwd ${folder}: loom run --session ${sessionId} --cwd ${folder} …`),
  });
  return recorded;
}

function recordedWorkspace(home: string, sessionId: string): string | undefined {
  try {
    return loadSessionFile(new SessionStore(home).pathOf(sessionId)).header.cwd;
  } catch {
    return undefined;
  }
}
