/**
 * `/rewind` (a view: pick a turn, then files, conversation or both; files show the diff they
 * will apply and wait for Enter) and `/diff` (what the session changed in the workspace since it
 * began, whoever made the change: each path with its status and lines, then the patch, capped).
 * Both read the session's checkpoints (checkpoint/session-changes.ts); the rewind itself runs
 * through the terminal's session (`TuiSession.rewind`), refused while a turn runs.
 */
import {
  cappedPatch,
  changeLine,
  filesNotRewindable,
  restorePreview,
  sessionDiff,
  type TreeDiff,
  type TurnChanges,
  turnChanges,
} from '../../checkpoint/session-changes.js';
import { type SessionTurn, sessionTurns } from '../../checkpoint/session-turns.js';
import { ShadowRepository } from '../../checkpoint/shadow-repository.js';
import type { TuiSession } from '../tui-session.js';
import type { TuiStore } from '../tui-store.js';
import type { SlashCommand } from './contract.js';

/** Patch lines `/diff` shows before pointing at `loom sessions diff`. */
export const DIFF_PATCH_LINES = 60;
/** Patch lines the rewind's confirmation shows. */
export const PREVIEW_PATCH_LINES = 30;

/** Why this session's files cannot be rewound, or undefined when they can. */
export function filesUnavailable(session: TuiSession): string | undefined {
  return filesNotRewindable(
    session.setup.config.checkpoints?.enabled !== false,
    session.current.log.header.cwd,
  );
}

function repositoryOf(session: TuiSession): ShadowRepository | undefined {
  if (filesUnavailable(session) !== undefined) return undefined;
  const workspace = session.current.log.header.cwd;
  return workspace === undefined
    ? undefined
    : new ShadowRepository(session.setup.runtime.home, workspace);
}

/** The session's turns with what each changed (none known without checkpoints). */
export function rewindTurns(session: TuiSession): Promise<TurnChanges[]> {
  return turnChanges(repositoryOf(session), session.current.log.events);
}

/** What restoring the files as `turn` began would apply; undefined: no checkpoint to restore from. */
export async function rewindPreview(
  session: TuiSession,
  turn: SessionTurn,
): Promise<TreeDiff | undefined> {
  const repository = repositoryOf(session);
  if (!repository) return undefined;
  return restorePreview(repository, session.current.log.events, turn);
}

/** The lines `/diff` shows. */
export async function diffText(
  session: TuiSession,
): Promise<{ tone: 'info' | 'warning'; text: string }> {
  const unavailable = session.setup.config.checkpoints?.enabled === false;
  const repository = repositoryOf(session);
  const id = session.sessionId;
  const diff = repository ? await sessionDiff(repository, session.current.log.events) : undefined;
  if (!diff) {
    return {
      tone: unavailable ? 'warning' : 'info',
      text: unavailable
        ? 'checkpoints are off (checkpoints.enabled: false in config): /diff has no start to compare the workspace with'
        : `this session made no checkpoint yet: it changed no file in ${session.setup.runtime.cwd}`,
    };
  }
  if (diff.changed.length === 0) {
    return { tone: 'info', text: 'the workspace is as this session found it: no change' };
  }
  const patch = cappedPatch(diff.patch, DIFF_PATCH_LINES);
  const lines = [
    `changed since this session began (${diff.changed.length} ${diff.changed.length === 1 ? 'path' : 'paths'}):`,
    ...diff.changed.map((change) => `  ${changeLine(change)}`),
    '',
    ...patch.lines,
    ...(patch.omitted > 0
      ? [
          `… ${patch.omitted} more lines of the patch; all of it: ${diff.fullPatch} (loom sessions diff ${id} lists the paths)`,
        ]
      : []),
  ];
  return { tone: 'info', text: lines.join('\n') };
}

/** What the transcript says once a rewind is done. */
export function rewoundNotice(
  turn: SessionTurn,
  outcome: { tree?: string; changed: readonly { status: string; path: string }[] },
  files: boolean,
  forked?: { from: string; to: string },
): string {
  const lines: string[] = [];
  if (files) {
    if (outcome.tree === undefined) {
      lines.push(
        `files: no checkpoint at or after turn ${turn.number}, so no file to restore (the session changed none through its tools since)`,
      );
    } else if (outcome.changed.length === 0) {
      lines.push(`files: already as turn ${turn.number} began: nothing to restore`);
    } else {
      lines.push(
        `files: restored as turn ${turn.number} began (${outcome.changed.length} ${outcome.changed.length === 1 ? 'path' : 'paths'}):`,
        ...outcome.changed.map((change) => `  ${change.status} ${change.path}`),
      );
    }
  }
  if (forked) {
    lines.push(
      `conversation: rewound to before turn ${turn.number} in a new session ${forked.to}; session ${forked.from} stays whole (/resume reopens it)`,
    );
  }
  return lines.join('\n');
}

export const rewindCommand: SlashCommand = {
  name: 'rewind',
  description:
    'go back to how a turn began: its files, the conversation (a new session) or both (esc returns)',
  run(_args, { session, store, setView }) {
    if (session.current.agent.status !== 'idle') {
      warn(store, '/rewind waits for an idle session: a turn is running (esc interrupts it)');
      return;
    }
    if (sessionTurns(session.current.log.events).length === 0) {
      store.add({
        kind: 'notice',
        tone: 'info',
        text: 'this session has no turn to rewind to yet',
      });
      return;
    }
    setView('rewind');
  },
};

export const diffCommand: SlashCommand = {
  name: 'diff',
  description: 'what this session changed in the workspace since it began, whoever changed it',
  async run(_args, { session, store }) {
    store.add({ kind: 'notice', ...(await diffText(session)) });
  },
};

function warn(store: TuiStore, text: string): void {
  store.add({ kind: 'notice', tone: 'warning', text });
}
