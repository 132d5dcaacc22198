/**
 * `loom compact --session ID [--instructions TEXT] [--model SPEC]` (SPEC §9): compacts a closed
 * session now, with the `context:` settings of the config of the session's workspace, and prints
 * what it did (or why nothing was done). Without instructions it prunes old tool results and
 * runs no model; with them the session's model (the one its last request went to, unless
 * `--model` names another) writes a summary of all but the last `keepSteps` steps, focused as
 * asked. It takes the session's writer lock (SESSION_BUSY names the holder).
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load-config.js';
import { contextSettings } from '../context/context-settings.js';
import { compactLog, manualCompactionLine } from '../context/manual-compaction.js';
import { createModelCatalog } from '../context/model-catalog.js';
import { modelRoutes } from '../context/model-routes.js';
import { loomHome } from '../core/home.js';
import type { SessionEvent } from '../core/session-events.js';
import { SessionStore } from '../core/session-store.js';
import { createModelClient } from '../llm/providers.js';
import { chooseModel } from './choose-model.js';
import { withErrorCode } from './goal-output.js';

export interface CompactOptions {
  session: string;
  instructions?: string;
  model?: string;
}

export async function compactCommand(options: CompactOptions): Promise<number> {
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
      const instructions = options.instructions?.trim();
      let summarizer: Parameters<typeof compactLog>[1]['summarizer'];
      if (instructions) {
        const spec =
          options.model ??
          lastModelOf(log.events) ??
          chooseModel({
            env: process.env,
            ...(config.model !== undefined ? { configModel: config.model } : {}),
          }).spec;
        const model = createModelClient(spec, {
          env: process.env,
          routes: modelRoutes(config.models),
          ...(config.retry ? { retry: config.retry } : {}),
        });
        const catalog = createModelCatalog({
          ...(config.models ? { models: config.models } : {}),
          ...(config.prices ? { prices: config.prices } : {}),
        });
        const window = catalog.lookup(spec, model.limits).context;
        summarizer = { model, window };
      }
      const result = await compactLog(log, {
        keepSteps,
        ...(instructions ? { instructions } : {}),
        ...(summarizer ? { summarizer } : {}),
      });
      await log.written();
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

/** The model the session's last request went to. */
function lastModelOf(events: readonly SessionEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type === 'request/header') {
      return (event as SessionEvent<'request/header'>).data.model;
    }
  }
  return undefined;
}
