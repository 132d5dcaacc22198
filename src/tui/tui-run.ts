/**
 * The interactive session once its first frame is on the screen (tui-command.ts drew it): builds
 * the runtime, opens the new or stored session, renders the app with ink (whose first frame
 * replaces the drawn one) and waits until the person leaves; then closes the session and prints
 * its id. Loaded only by tui-command.ts, after that first frame.
 */

import { UserError } from '../base/errors.js';
import { buildRuntime } from '../cli/build-runtime.js';
import { resolveWorkspace, runWorkspace } from '../cli/session-workspace.js';
import { loomHome } from '../core/home.js';
import { mcpPromptCommands } from '../mcp/prompt-commands.js';
import { refreshResourceChoices } from '../mcp/resource-mentions.js';
import type { FirstFrame } from './first-frame.js';
import { InteractionBroker } from './interaction-broker.js';
import { appendHistory, historyFileOf, readHistory } from './prompt-history.js';
import type { TuiOptions } from './tui-options.js';
import { TuiSession, workspaceSessions } from './tui-session.js';
import { TuiStore } from './tui-store.js';

export async function runTui(
  options: TuiOptions,
  firstFrame: FirstFrame,
  app: Promise<typeof import('./app.js')>,
): Promise<number> {
  const home = loomHome();
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
  const handle = resumeId === undefined ? runtime.start() : runtime.resume(resumeId);
  // The MCP servers start with the session; a failure is reported before ink draws.
  await setup.mcp.ready(handle);
  // Their prompts are slash commands and their resources @mentions; completion lists them from
  // what was listed here.
  await Promise.all([mcpPromptCommands(handle.context), refreshResourceChoices(handle.context)]);
  const session = new TuiSession(setup, broker, handle);
  const store = new TuiStore(setup, session.current, broker);
  const historyFile = historyFileOf(home, cwd);
  const history = readHistory(historyFile);
  const { renderApp } = await app;
  let exit = () => {};
  const exited = new Promise<void>((resolve) => {
    exit = resolve;
  });
  const instance = renderApp(
    {
      store,
      session,
      history,
      onSubmitHistory(text: string) {
        history.push(text);
        appendHistory(historyFile, text);
      },
      onExit: () => exit(),
    },
    firstFrame,
  );
  await exited;
  instance.unmount();
  await instance.waitUntilExit();
  store.dispose();
  await session.close();
  await setup.mcp.dispose();
  process.stdout.write(
    `session ${session.sessionId}\nresume it with: loom --resume ${session.sessionId}\n`,
  );
  return 0;
}
