/**
 * `/rewind` and `/diff` over ACP, answered as text (session-commands.ts sends it). `/rewind`
 * lists the session's turns with what each changed; `/rewind N` shows the diff restoring the
 * files as turn N began would apply, and how to go on; `/rewind N files|conversation|both` does
 * it at once: the command names what goes back, so the files are restored without a further
 * question. The conversation goes on in a new session forked before the turn (this one stays
 * whole), whose id the answer names for the client to `session/load`: ACP has no message by which
 * an agent moves a client to another session. `/diff` is what the session changed in the
 * workspace since it began, whoever made the change. A mistake is answered with how to fix it.
 */
import { errorMessage } from '../base/errors.js';
import { type RewindRequest, rewindSession } from '../checkpoint/rewind.js';
import {
  cappedPatch,
  changeLine,
  changeSummary,
  filesNotRewindable,
  restorePreview,
  sessionDiff,
  type TreeDiff,
  turnChanges,
  workspaceRepository,
} from '../checkpoint/session-changes.js';
import { findTurn, type SessionTurn, sessionTurns } from '../checkpoint/session-turns.js';
import { ShadowRepository } from '../checkpoint/shadow-repository.js';
import type { AcpSession } from './acp-sessions.js';

/** Patch lines an answer shows before pointing at `loom sessions diff`. */
const PATCH_LINES = 200;

export const REWIND_DESCRIPTION =
  'Go back to how a turn began: /rewind lists the turns and what each changed, /rewind N shows the diff restoring its files would apply, /rewind N files|conversation|both does it (the conversation goes on in a new session; this one stays whole).';
export const REWIND_HINT = 'TURN files|conversation|both';
export const DIFF_DESCRIPTION =
  'Show what this session changed in the workspace since it began, whoever made the change.';

const USAGE =
  'Use /rewind to list the turns, /rewind N to see what restoring the files as turn N began would change, and /rewind N files, /rewind N conversation or /rewind N both to rewind.';

function whyNoFiles(session: AcpSession): string | undefined {
  return filesNotRewindable(
    session.setup.config.checkpoints?.enabled !== false,
    session.handle.log.header.cwd,
  );
}

function repositoryOf(session: AcpSession): ShadowRepository | undefined {
  const workspace = session.handle.log.header.cwd;
  if (whyNoFiles(session) !== undefined || workspace === undefined) return undefined;
  return new ShadowRepository(session.setup.runtime.home, workspace);
}

export async function rewindAnswer(session: AcpSession, args: string): Promise<string> {
  if (session.handle.agent.status !== 'idle') {
    return '/rewind waits for an idle session: a turn is running (cancel it, or try again once it ends).';
  }
  const match = /^(\S+)(?:\s+(files|conversation|both))?$/.exec(args);
  if (args !== '' && !match) return `/rewind does not take "${args}". ${USAGE}`;
  try {
    if (!match) return await turnList(session);
    const [, to = '', mode] = match;
    const { log } = session.handle;
    const turn = findTurn(sessionTurns(log.events), to, session.id);
    if (mode === undefined) return await preview(session, turn, to);
    const request: RewindRequest = {
      files: mode !== 'conversation',
      conversation: mode !== 'files',
    };
    const notes: string[] = [];
    if (request.files) {
      const why = whyNoFiles(session);
      if (why !== undefined)
        return `The files cannot be rewound: ${why} (/rewind ${to} conversation).`;
    }
    const files = request.files
      ? await workspaceRepository(session.setup.runtime.home, log.header, {
          conversationOnly: `/rewind ${to} conversation rewinds only the conversation`,
          onFinished: (line) => notes.push(`${line}.`),
        })
      : undefined;
    const outcome = await rewindSession({
      log,
      store: session.setup.runtime.store,
      repository: files?.repository,
      turn,
      request,
      ...(files?.before !== undefined ? { before: files.before } : {}),
    });
    const lines = [...notes];
    if (request.files) {
      if (outcome.tree === undefined) {
        lines.push(
          `Files: no checkpoint at or after turn ${turn.number}, so the session changed no file through its tools since: nothing to restore.`,
        );
      } else if (outcome.changed.length === 0) {
        lines.push(`Files: already as turn ${turn.number} began, nothing to restore.`);
      } else {
        lines.push(
          `Files: restored as turn ${turn.number} began (${outcome.changed.length} ${outcome.changed.length === 1 ? 'path' : 'paths'}):`,
          ...outcome.changed.map((change) => `- ${change.status} ${change.path}`),
        );
      }
    }
    if (outcome.forkedSession !== undefined) {
      lines.push(
        `Conversation: rewound to before turn ${turn.number} in a new session, ${outcome.forkedSession}; this session (${session.id}) stays whole. Load ${outcome.forkedSession} (session/load) to go on from there.`,
      );
    }
    return lines.join('\n');
  } catch (error) {
    return errorMessage(error);
  }
}

async function turnList(session: AcpSession): Promise<string> {
  const turns = await turnChanges(repositoryOf(session), session.handle.log.events);
  if (turns.length === 0) return 'This session has no turn to rewind to yet.';
  const lines = ["This session's turns and what each changed:"];
  for (const [index, { turn, changed }] of turns.entries()) {
    const last = index === turns.length - 1 ? ' (to now)' : '';
    const what = changed === undefined ? 'no checkpoint' : `${changeSummary(changed)}${last}`;
    lines.push(`${turn.number}. ${turn.prompt === '' ? '(no prompt)' : turn.prompt} — ${what}`);
    for (const change of changed ?? []) lines.push(`   ${changeLine(change)}`);
  }
  const why = whyNoFiles(session);
  if (why !== undefined) lines.push('', `Note: ${why}.`);
  lines.push('', USAGE);
  return lines.join('\n');
}

async function preview(session: AcpSession, turn: SessionTurn, to: string): Promise<string> {
  const { number } = turn;
  const why = whyNoFiles(session);
  const repository = repositoryOf(session);
  const diff = repository
    ? await restorePreview(repository, session.handle.log.events, turn)
    : undefined;
  const go = `/rewind ${to} files (or both) restores them; /rewind ${to} conversation goes on in a new session from before turn ${number} and leaves the files as they are.`;
  if (why !== undefined) return `${why}: /rewind ${to} conversation rewinds it.`;
  if (diff === undefined) {
    return `No checkpoint at or after turn ${number}: the session changed no file through its tools since, so there is no file to restore. /rewind ${to} conversation goes on in a new session from before it.`;
  }
  if (diff.changed.length === 0) return `The files are already as turn ${number} began. ${go}`;
  return [
    `Restoring the files as turn ${number} began would change:`,
    ...diff.changed.map((change) => `- ${changeLine(change)}`),
    '',
    ...fenced(diff),
    '',
    go,
  ].join('\n');
}

export async function diffAnswer(session: AcpSession): Promise<string> {
  const disabled = session.setup.config.checkpoints?.enabled === false;
  const repository = repositoryOf(session);
  const diff = repository ? await sessionDiff(repository, session.handle.log.events) : undefined;
  if (!diff) {
    return disabled
      ? 'Checkpoints are off (checkpoints.enabled: false in config): /diff has no start to compare the workspace with.'
      : `This session made no checkpoint yet: it changed no file in ${session.setup.runtime.cwd}.`;
  }
  if (diff.changed.length === 0) return 'The workspace is as this session found it: no change.';
  return [
    `Changed since this session began (${diff.changed.length} ${diff.changed.length === 1 ? 'path' : 'paths'}):`,
    ...diff.changed.map((change) => `- ${changeLine(change)}`),
    '',
    ...fenced(diff, session.id),
  ].join('\n');
}

/** The patch in a `diff` block, capped, with where to see all of it. */
function fenced({ patch, fullPatch }: TreeDiff, sessionId?: string): string[] {
  const { lines, omitted } = cappedPatch(patch, PATCH_LINES);
  // A fence longer than any run of backticks in the patch, so none of its lines closes it.
  const longest = Math.max(0, ...(patch.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [
    `${fence}diff`,
    ...lines,
    fence,
    ...(omitted > 0
      ? [
          `… ${omitted} more lines of the patch; all of it: \`${fullPatch}\`${sessionId !== undefined ? ` (\`loom sessions diff ${sessionId}\` lists the paths)` : ''}.`,
        ]
      : []),
  ];
}
