/**
 * A session stays in its workspace: opening it from another folder is refused (WORKSPACE_MISMATCH)
 * with both folders named. Sessions of older versions record no workspace and open anywhere.
 */
import { realFolder } from '../core/workspace-folder.js';
import { WorkspaceError } from './workspace-contract.js';

/**
 * Throws WORKSPACE_MISMATCH unless `current` is the session's recorded workspace (compared by
 * real path). `howToFix` ends the message: how to open it from the right folder.
 */
export function checkSessionWorkspace(check: {
  sessionId: string;
  recorded: string | undefined;
  current: string;
  /** Where `current` came from, such as `--cwd`. */
  currentSource: string;
  howToFix: (recorded: string) => string;
}): void {
  const { sessionId, recorded, current } = check;
  if (recorded === undefined) return;
  if (realFolder(current) === realFolder(recorded)) return;
  throw new WorkspaceError(
    'WORKSPACE_MISMATCH',
    `session ${sessionId} belongs to the workspace ${recorded}, not to ${current} (${check.currentSource}): a session is opened only in its own workspace; ${check.howToFix(recorded)}`,
  );
}
