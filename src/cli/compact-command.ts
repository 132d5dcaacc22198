/**
 * `loom compact --session ID` (SPEC §9): prunes a closed session's old tool results now, with the
 * `context.keepSteps` of the config of the session's workspace, and prints what it did (or that
 * nothing could be pruned). It takes the session's writer lock (SESSION_BUSY names the holder);
 * it appends one event and never runs a model (summarization is not built).
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load-config.js';
import { contextSettings } from '../context/context-settings.js';
import { compactLog, manualCompactionLine } from '../context/manual-compaction.js';
import { loomHome } from '../core/home.js';
import { SessionStore } from '../core/session-store.js';
import { withErrorCode } from './goal-output.js';

export interface CompactOptions {
  session: string;
}

export function compactCommand(options: CompactOptions): number {
  try {
    const home = loomHome();
    const log = new SessionStore(home).open(options.session);
    try {
      // The config of the session's own workspace, else of the current folder.
      const workspace = log.header.cwd;
      const config = loadConfig(
        home,
        workspace !== undefined && existsSync(workspace) ? workspace : process.cwd(),
      );
      const { keepSteps } = contextSettings(config.context);
      const result = compactLog(log, { keepSteps });
      log.flush();
      process.stdout.write(`${manualCompactionLine(result)}\n`);
      return 0;
    } finally {
      log.close();
    }
  } catch (error) {
    throw withErrorCode(error);
  }
}
