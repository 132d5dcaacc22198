/**
 * Opens the interactive session: the workspace (a reopened session's own), the runtime, the new
 * or stored session and the store the app draws from. Loaded by tui-run.ts once ink shows the
 * starting screen, so the runtime's modules load while a person can already type.
 */
import { buildRuntime } from '../cli/build-runtime.js';
import { resolveWorkspace, runWorkspace } from '../cli/session-workspace.js';
import { UserError } from '../core/errors.js';
import { InteractionBroker } from './interaction-broker.js';
import type { TuiOptions } from './tui-command.js';
import { TuiSession, workspaceSessions } from './tui-session.js';
import { TuiStore } from './tui-store.js';

export interface OpenedSession {
  cwd: string;
  session: TuiSession;
  store: TuiStore;
}

/** Throws a UserError for a bad model, a wrong workspace or no session to continue. */
export function openSession(options: TuiOptions, home: string): OpenedSession {
  // A reopened session works in the workspace its header records.
  const cwd =
    options.resume === undefined
      ? resolveWorkspace(options.cwd)
      : runWorkspace(
          { session: options.resume, ...(options.cwd !== undefined ? { cwd: options.cwd } : {}) },
          home,
          (folder) =>
            `run it from there (cd ${folder}) or pass --cwd ${folder}: loom --resume ${options.resume} --cwd ${folder}`,
        );
  const broker = new InteractionBroker();
  const setup = buildRuntime({
    cwd,
    home,
    answerer: broker.answerer,
    ...(options.model !== undefined ? { model: options.model } : {}),
  });
  const { runtime } = setup;
  let resumeId = options.resume;
  if (options.continue) {
    resumeId = workspaceSessions(home, cwd)[0]?.id;
    if (resumeId === undefined) {
      throw new UserError('SESSION_NOT_FOUND', `no session to continue in this workspace (${cwd})`);
    }
  }
  const session = new TuiSession(
    setup,
    broker,
    resumeId === undefined ? runtime.start() : runtime.resume(resumeId),
  );
  return { cwd, session, store: new TuiStore(setup, session.current, broker) };
}
