/**
 * `loom rewind --session ID --to TURN [--files | --conversation | --both]` (SPEC §11, default
 * `--both`): the state as turn TURN began (TURN counts from 1, or names a `turn-N` id). Files:
 * the session's workspace restored from its checkpoints (what the restore changed on stderr,
 * `A`/`M`/`D` and the path). Conversation: a new session holding the events before that turn,
 * whose id is the one line on stdout. An unfinished restore of the workspace is finished first.
 * It takes the session's writer lock (SESSION_BUSY names the holder).
 */
import { UserError } from '../base/errors.js';
import { rewindSession } from '../checkpoint/rewind.js';
import { workspaceRepository } from '../checkpoint/session-changes.js';
import { findTurn, sessionTurns } from '../checkpoint/session-turns.js';
import { loomHome } from '../core/home.js';
import { SessionStore } from '../core/session-store.js';
import { withErrorCode } from './goal-output.js';

export interface RewindOptions {
  session: string;
  to: string;
  files?: boolean;
  conversation?: boolean;
  both?: boolean;
}

export async function rewindCommand(options: RewindOptions): Promise<number> {
  try {
    const chosen = [options.files, options.conversation, options.both].filter(Boolean).length;
    if (chosen > 1) {
      throw new UserError(
        'INVALID_ARGUMENT',
        'choose one of --files, --conversation and --both (default --both)',
      );
    }
    const request = {
      files: options.conversation !== true,
      conversation: options.files !== true,
    };
    const home = loomHome();
    const store = new SessionStore(home);
    const log = store.open(options.session);
    try {
      const turn = findTurn(sessionTurns(log.events), options.to, options.session);
      const workspace = log.header.cwd;
      const files = request.files
        ? await workspaceRepository(home, log.header, {
            conversationOnly: '--conversation rewinds only the conversation',
            onFinished: (line) => process.stderr.write(`${line}\n`),
          })
        : undefined;
      const outcome = await rewindSession({
        log,
        store,
        repository: files?.repository,
        turn,
        request,
        ...(files?.before !== undefined ? { before: files.before } : {}),
      });
      if (request.files) {
        if (outcome.tree === undefined) {
          process.stderr.write(
            `files: no checkpoint at or after turn ${turn.number}, so the session changed no file since it began: nothing to restore\n`,
          );
        } else {
          const count = outcome.changed.length;
          process.stderr.write(
            `files: restored ${workspace} as turn ${turn.number} began (${count} ${count === 1 ? 'path' : 'paths'} changed)\n`,
          );
          for (const change of outcome.changed) {
            process.stderr.write(`  ${change.status} ${change.path}\n`);
          }
        }
      }
      if (outcome.forkedSession !== undefined) {
        process.stderr.write(
          `conversation: forked before turn ${turn.number} into a new session (${options.session} stays whole); continue it with loom run --session ${outcome.forkedSession}\n`,
        );
        process.stdout.write(`${outcome.forkedSession}\n`);
      }
      return 0;
    } finally {
      log.close();
    }
  } catch (error) {
    throw withErrorCode(error);
  }
}
