/**
 * The checkpoint layer's contract: its session events, error codes and the names of the tools
 * that can change files. A checkpoint is a git tree id in the workspace's shadow repository
 * (`shadow-repository.ts`); the session log only names it. Nothing here touches the user's own
 * repository.
 */
import { LoomError } from '../base/errors.js';

/** Logged once per step that can change files, before its first such call runs. */
export interface CheckpointCreateEvent {
  /** The turn's id (`turn-N`). */
  turn: string;
  step: number;
  /** The workspace's tree as the step began, in the shadow repository. */
  tree: string;
}

/** Logged in a session a rewind went back in (and in the session a conversation rewind forked). */
export interface CheckpointRestoreEvent {
  /** The turn rewound to (its id, `turn-N`); the state is the one that turn began with. */
  turn: string;
  /** Which turn of the session that is, counting from 1. */
  number: number;
  /** Whether the workspace's files were restored. */
  files: boolean;
  /** Whether the conversation was forked into a new session. */
  conversation: boolean;
  /** The tree the files were restored to (absent when `files` is false). */
  tree?: string;
  /** The workspace's tree just before the restore, so the restore itself can be undone. */
  before?: string;
  /** In the session rewound: the new session the conversation went on in. */
  forkedTo?: string;
  /** In the new session: the session it was forked from. */
  forkedFrom?: string;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'checkpoint/create': CheckpointCreateEvent;
    'checkpoint/restore': CheckpointRestoreEvent;
  }
}

export type CheckpointErrorCode =
  | 'CHECKPOINT_FAILED'
  | 'CHECKPOINT_BUSY'
  | 'REWIND_NO_TURN'
  | 'REWIND_UNFINISHED';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<CheckpointErrorCode, true> {}
}

export class CheckpointError extends LoomError<CheckpointErrorCode> {}

/**
 * The tools whose calls can change the workspace's files: a step that calls one is checkpointed
 * first. A list rather than a property of the tool, so the tools' own files stay as they are;
 * `subagent` is in it because a child works in the same workspace. Tools of MCP servers are not.
 */
export const FILE_CHANGING_TOOLS: ReadonlySet<string> = new Set([
  'write_file',
  'edit_file',
  'bash',
  'run_code',
  'workflow',
  'subagent',
]);

/** One path a comparison of two trees found changed: added, modified or deleted. */
export interface ChangedPath {
  status: 'A' | 'M' | 'D';
  path: string;
  /** Lines added and removed; absent for a binary file. */
  added?: number;
  removed?: number;
}
