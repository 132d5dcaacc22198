/**
 * The workspace seam (layer 6): every session belongs to one workspace, the real path of the
 * folder it works in, and `$LOOM_HOME/workspaces.json` lists the workspaces sessions were made
 * or opened in. Types and error codes only.
 */
import { LoomError } from '../base/errors.js';

export interface WorkspaceEntry {
  /** Stable: derived from the path, so every process gives a folder the same id. */
  id: string;
  /** The folder's base name; `parent/base` (then `-2`, `-3`…) when another workspace has it. */
  name: string;
  /** The real path (symlinks resolved). */
  path: string;
  /** ISO 8601: when a session was last made or opened there. */
  lastUsed: string;
}

/** The file `$LOOM_HOME/workspaces.json`. */
export interface WorkspaceRegistryFile {
  version: 1;
  workspaces: WorkspaceEntry[];
}

export type WorkspaceErrorCode = 'WORKSPACE_MISMATCH' | 'WORKSPACES_CORRUPT' | 'WORKSPACES_BUSY';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<WorkspaceErrorCode, true> {}
}

export class WorkspaceError extends LoomError<WorkspaceErrorCode> {}
