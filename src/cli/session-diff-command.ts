/**
 * `loom sessions diff ID` (SPEC §11): each path the session changed in its workspace since it
 * began (its first checkpoint against the workspace now, whoever made the change), one a line:
 * `A`, `M` or `D`, a space, the path. A session that made no checkpoint prints nothing and says
 * so on stderr. Reads the session file without taking its lock.
 */
import { existsSync } from 'node:fs';
import { UserError } from '../base/errors.js';
import { firstCheckpoint } from '../checkpoint/session-turns.js';
import { ShadowRepository } from '../checkpoint/shadow-repository.js';
import { unfinishedRestoreNotice } from '../checkpoint/unfinished-restore.js';
import { loomHome } from '../core/home.js';
import { loadSessionFile } from '../core/session-load.js';
import { SessionStore } from '../core/session-store.js';
import { withErrorCode } from './goal-output.js';

export async function sessionDiffCommand(id: string): Promise<number> {
  try {
    const home = loomHome();
    const path = new SessionStore(home).pathOf(id);
    if (!existsSync(path)) throw new UserError('SESSION_NOT_FOUND', `no session ${id} (${path})`);
    const { header, events } = loadSessionFile(path);
    const workspace = header.cwd;
    if (workspace === undefined || !existsSync(workspace)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `session ${id} records no workspace that still exists (${workspace ?? 'none'})`,
      );
    }
    const first = firstCheckpoint(events);
    if (first === undefined) {
      process.stderr.write(
        `session ${id} made no checkpoint: it changed no file in ${workspace}\n`,
      );
      return 0;
    }
    const notice = unfinishedRestoreNotice(home, workspace);
    if (notice) process.stderr.write(`loom: ${notice}\n`);
    const changes = await new ShadowRepository(home, workspace).changes(first);
    for (const change of changes) process.stdout.write(`${change.status} ${change.path}\n`);
    return 0;
  } catch (error) {
    throw withErrorCode(error);
  }
}
