/**
 * Keeps the workspace registry current: when this runtime makes or opens a root session (and for
 * its first agent of any kind), the session's workspace is recorded as used. A registry that
 * cannot be updated never stops a session: it is reported once, and the file is left alone.
 */

import { errorMessage } from '../base/errors.js';
import type { Disposer } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import { realFolder } from '../core/workspace-folder.js';
import { recordWorkspaceUse } from './workspace-registry.js';

/** Where a failed update is reported; default a line on stderr. */
export type WorkspaceReport = (message: string) => void;

export function installWorkspaces(
  runtime: AgentRuntime,
  report: WorkspaceReport = (message) => process.stderr.write(`loom: ${message}\n`),
): Disposer {
  let recordedOnce = false;
  let reported = false;
  return runtime.onAgent((handle) => {
    const { header } = handle.log;
    if (header.delegationDepth !== 0 && recordedOnce) return undefined;
    recordedOnce = true;
    try {
      recordWorkspaceUse(runtime.home, header.cwd ?? realFolder(runtime.cwd));
    } catch (error) {
      if (!reported) {
        reported = true;
        report(`the workspace registry was not updated: ${errorMessage(error)}`);
      }
    }
    return undefined;
  });
}
