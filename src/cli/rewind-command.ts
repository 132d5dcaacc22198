/**
 * `loom rewind --session ID --to TURN [--files | --conversation | --both]` (SPEC §11, default
 * `--both`): the state as turn TURN began (TURN counts from 1, or names a `turn-N` id). Files:
 * the session's workspace restored from its checkpoints (what the restore changed on stderr,
 * `A`/`M`/`D` and the path). Conversation: a new session holding the events before that turn,
 * whose id is the one line on stdout. An unfinished restore of the workspace is finished first.
 * It takes the session's writer lock (SESSION_BUSY names the holder).
 */
import { existsSync } from 'node:fs';
import { UserError } from '../base/errors.js';
import { rewindSession } from '../checkpoint/rewind.js';
import { findTurn, sessionTurns } from '../checkpoint/session-turns.js';
import { ShadowRepository } from '../checkpoint/shadow-repository.js';
import { finishUnfinishedRestore } from '../checkpoint/unfinished-restore.js';
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
      if (request.files && (workspace === undefined || !existsSync(workspace))) {
        throw new UserError(
          'INVALID_ARGUMENT',
          `session ${options.session} records no workspace that still exists (${workspace ?? 'none'}): its files cannot be restored; --conversation rewinds only the conversation`,
        );
      }
      const repository =
        request.files && workspace !== undefined
          ? new ShadowRepository(home, workspace)
          : undefined;
      let before: string | undefined;
      if (repository && request.files) {
        const finished = await finishUnfinishedRestore(repository);
        if (finished) {
          before = finished.before;
          process.stderr.write(
            `finished the restore a crash cut short (${finished.session ? `session ${finished.session}, turn ${finished.number ?? finished.turn}` : `checkpoint ${finished.tree}`})\n`,
          );
        }
      }
      const outcome = await rewindSession({
        log,
        store,
        repository,
        turn,
        request,
        ...(before !== undefined ? { before } : {}),
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
