/**
 * `session/load` opens a session only in its own workspace: a `cwd` naming another folder is
 * refused with an invalid-params error naming both folders. A session that cannot be read here
 * is left to the load itself, which reports it in its own words.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { loadSessionFile } from '../core/session-load.js';
import { SessionStore } from '../core/session-store.js';
import { checkSessionWorkspace } from '../interaction/workspace-check.js';
import { WorkspaceError } from '../interaction/workspace-contract.js';

export function refuseOtherWorkspace(home: string, sessionId: string, cwd: string): void {
  let recorded: string | undefined;
  try {
    recorded = loadSessionFile(new SessionStore(home).pathOf(sessionId)).header.cwd;
  } catch {
    return;
  }
  try {
    checkSessionWorkspace({
      sessionId,
      recorded,
      current: cwd,
      currentSource: 'the cwd of session/load',
      howToFix: (folder) => `load it with cwd ${folder}`,
    });
  } catch (error) {
    if (error instanceof WorkspaceError)
      throw RequestError.invalidParams({ field: 'cwd', value: cwd }, error.message);
    throw error;
  }
}
