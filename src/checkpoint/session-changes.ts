/**
 * What a session changed, as the rewind and diff commands show it (the terminal's `/rewind` and
 * `/diff`, ACP's, `loom sessions diff`): each turn's changes (from the tree it began with to the
 * next turn's, the last one's to the workspace now), the session's since it began (its first
 * checkpoint to the workspace now, whoever made the change), what restoring a turn's files would
 * apply, and the lines that say so. Reads the shadow repository (a snapshot of the workspace now
 * is one more tree in it) and never changes the workspace.
 */
import { existsSync } from 'node:fs';
import { UserError } from '../base/errors.js';
import type { SessionEvent, SessionHeader } from '../core/session-events.js';
import type { ChangedPath } from './contract.js';
import { firstCheckpoint, type SessionTurn, sessionTurns, startTree } from './session-turns.js';
import { ShadowRepository } from './shadow-repository.js';
import { finishUnfinishedRestore } from './unfinished-restore.js';

export interface TurnChanges {
  turn: SessionTurn;
  /** What the turn changed; undefined when no checkpoint at or after it says (it changed nothing through Loom). */
  changed?: ChangedPath[];
}

/** Each turn of `events` with what it changed: its start tree to the next turn's (the last: to now). */
export async function turnChanges(
  repository: ShadowRepository | undefined,
  events: readonly SessionEvent[],
): Promise<TurnChanges[]> {
  const turns = sessionTurns(events);
  const starts = turns.map((turn) => startTree(turns, turn));
  let now: string | undefined;
  const result: TurnChanges[] = [];
  for (const [index, turn] of turns.entries()) {
    const from = starts[index];
    if (repository === undefined || from === undefined) {
      result.push({ turn });
      continue;
    }
    let to = starts[index + 1];
    if (to === undefined) {
      now ??= await repository.snapshot();
      to = now;
    }
    result.push({ turn, changed: from === to ? [] : await repository.changes(from, to) });
  }
  return result;
}

export interface TreeDiff {
  from: string;
  to: string;
  changed: ChangedPath[];
  /** The unified diff from `from` to `to`. */
  patch: string;
  /** The command that prints the whole patch (a capped one points at it). */
  fullPatch: string;
}

async function treeDiff(repository: ShadowRepository, from: string, to: string): Promise<TreeDiff> {
  const gitDir = repository.place.gitDir;
  const quoted = /^[\w./-]+$/.test(gitDir) ? gitDir : `'${gitDir.replaceAll("'", "'\\''")}'`;
  return {
    from,
    to,
    changed: await repository.changes(from, to),
    patch: await repository.patch(from, to),
    fullPatch: `git --git-dir=${quoted} diff ${from} ${to}`,
  };
}

/** What the session changed since it began (its first checkpoint to now); undefined: it made none. */
export async function sessionDiff(
  repository: ShadowRepository,
  events: readonly SessionEvent[],
): Promise<TreeDiff | undefined> {
  const first = firstCheckpoint(events);
  if (first === undefined) return undefined;
  return treeDiff(repository, first, await repository.snapshot());
}

/** What restoring the files as `turn` began would apply (now to its start tree); undefined: no checkpoint to restore. */
export async function restorePreview(
  repository: ShadowRepository,
  events: readonly SessionEvent[],
  turn: SessionTurn,
): Promise<TreeDiff | undefined> {
  const tree = startTree(sessionTurns(events), turn);
  if (tree === undefined) return undefined;
  return treeDiff(repository, await repository.snapshot(), tree);
}

/**
 * The shadow repository of the session's workspace, for rewinding its files; a workspace that no
 * longer exists is a UserError ending with `conversationOnly` (how to rewind just the
 * conversation). A restore a crash cut short is finished first, `onFinished` told, and the tree
 * the workspace had before it returned as `before` (for `rewindSession`, so undoing goes back
 * past both).
 */
export async function workspaceRepository(
  home: string,
  header: Pick<SessionHeader, 'sessionId' | 'cwd'>,
  options: { conversationOnly: string; onFinished(line: string): void },
): Promise<{ repository: ShadowRepository; before?: string }> {
  const workspace = header.cwd;
  if (workspace === undefined || !existsSync(workspace)) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `session ${header.sessionId} records no workspace that still exists (${workspace ?? 'none'}): its files cannot be restored; ${options.conversationOnly}`,
    );
  }
  const repository = new ShadowRepository(home, workspace);
  const finished = await finishUnfinishedRestore(repository);
  if (!finished) return { repository };
  options.onFinished(
    `finished the restore a crash cut short (${finished.session ? `session ${finished.session}, turn ${finished.number ?? finished.turn}` : `checkpoint ${finished.tree}`})`,
  );
  return { repository, ...(finished.before !== undefined ? { before: finished.before } : {}) };
}

/**
 * Why the files of a session in `workspace` cannot be rewound (checkpoints are off in config, or
 * the workspace is gone), or undefined when they can.
 */
export function filesNotRewindable(
  checkpointsEnabled: boolean,
  workspace: string | undefined,
): string | undefined {
  if (!checkpointsEnabled) {
    return 'checkpoints are off (checkpoints.enabled: false in config), so no file can be restored: only the conversation can be rewound';
  }
  if (workspace === undefined || !existsSync(workspace)) {
    return `this session records no workspace that still exists (${workspace ?? 'none'}): only the conversation can be rewound`;
  }
  return undefined;
}

/** `M src/a.ts +3 -1` (a binary file: `binary`). */
export function changeLine(change: ChangedPath): string {
  const lines = change.added === undefined ? 'binary' : `+${change.added} -${change.removed ?? 0}`;
  return `${change.status} ${change.path} ${lines}`;
}

/** `2 files +5 -1`, or `no change`. */
export function changeSummary(changed: readonly ChangedPath[]): string {
  if (changed.length === 0) return 'no change';
  const added = changed.reduce((sum, change) => sum + (change.added ?? 0), 0);
  const removed = changed.reduce((sum, change) => sum + (change.removed ?? 0), 0);
  return `${changed.length} ${changed.length === 1 ? 'file' : 'files'} +${added} -${removed}`;
}

/**
 * The first `maxLines` lines of a patch, and how many were left out; control characters (a CR
 * of a CRLF line end, an escape) are shown as `^M`, `^[`, so a terminal draws them as text.
 */
export function cappedPatch(patch: string, maxLines: number): { lines: string[]; omitted: number } {
  if (patch === '') return { lines: [], omitted: 0 };
  const all = patch.replace(/\n$/, '').split('\n');
  return {
    lines: all.slice(0, maxLines).map(visibleControls),
    omitted: Math.max(0, all.length - maxLines),
  };
}

function visibleControls(line: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to show
  return line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (character) =>
    character === '\u007f' ? '^?' : `^${String.fromCharCode(character.charCodeAt(0) + 64)}`,
  );
}
