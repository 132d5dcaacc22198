/**
 * Rewinding an open session to the state as turn TURN began: its files (the workspace restored
 * to that turn's start tree, whoever changed them since) and its conversation (a new session
 * seeded with the events before that turn; the old session stays whole). Each logs
 * `checkpoint/restore` in the session rewound, and the fork logs it too, naming where it came
 * from. The caller holds the session's log (its writer lock) and closes it.
 */
import type { SessionLog } from '../core/session-log.js';
import type { SessionStore } from '../core/session-store.js';
import type { ChangedPath, CheckpointRestoreEvent } from './contract.js';
import { type SessionTurn, sessionTurns, startTree } from './session-turns.js';
import type { ShadowRepository } from './shadow-repository.js';

export interface RewindRequest {
  files: boolean;
  conversation: boolean;
}

export interface RewindOutcome {
  turn: SessionTurn;
  /** The tree the files went back to; undefined when nothing needed restoring. */
  tree?: string;
  /** What the restore changed in the workspace (empty when nothing). */
  changed: ChangedPath[];
  /** The new session, when the conversation was rewound. */
  forkedSession?: string;
}

/** What restoring the files to `turn`'s start would change, and the tree; no tree: nothing. */
export async function plannedFileRestore(
  repository: ShadowRepository,
  log: SessionLog,
  turn: SessionTurn,
): Promise<{ tree?: string; changed: ChangedPath[] }> {
  const tree = startTree(sessionTurns(log.events), turn);
  if (tree === undefined) return { changed: [] };
  const now = await repository.snapshot();
  return { tree, changed: await repository.changes(now, tree) };
}

export async function rewindSession(options: {
  log: SessionLog;
  store: SessionStore;
  /** Needed when `request.files`. */
  repository?: ShadowRepository;
  turn: SessionTurn;
  request: RewindRequest;
  /**
   * The workspace's tree before a restore a crash cut short, which this rewind's caller just
   * finished: logged as `before` so undoing goes back past both.
   */
  before?: string;
}): Promise<RewindOutcome> {
  const { log, store, repository, turn, request } = options;
  const outcome: RewindOutcome = { turn, changed: [] };
  const event: CheckpointRestoreEvent = {
    turn: turn.id,
    number: turn.number,
    files: request.files,
    conversation: request.conversation,
  };
  if (request.files) {
    if (!repository) throw new Error('rewinding files needs the shadow repository');
    const tree = startTree(sessionTurns(log.events), turn);
    if (tree !== undefined) {
      const before = await repository.restore(tree, {
        session: log.header.sessionId,
        turn: turn.id,
        number: turn.number,
        ...(options.before !== undefined ? { before: options.before } : {}),
      });
      outcome.tree = tree;
      outcome.changed = await repository.changes(before, tree);
      event.tree = tree;
      event.before = before;
    }
  }
  if (request.conversation) {
    const fork = store.create({
      ...(log.header.cwd !== undefined ? { cwd: log.header.cwd } : {}),
      seed: log.events.slice(0, turn.startIndex),
    });
    try {
      fork.append('checkpoint/restore', { ...event, forkedFrom: log.header.sessionId });
      fork.flush();
    } finally {
      fork.close();
    }
    outcome.forkedSession = fork.header.sessionId;
    event.forkedTo = fork.header.sessionId;
  }
  log.append('checkpoint/restore', event);
  log.flush();
  return outcome;
}
