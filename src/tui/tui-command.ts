/**
 * `loom` with no command: the interactive session on a terminal (`--resume ID` reopens a stored
 * session, `--continue` the latest of this workspace). Without a terminal on both stdin and
 * stdout it prints a short usage pointing at `loom run` and exits 2. ink and React are loaded
 * here only, so other commands never pay for them. At exit the session id is printed.
 */
import { buildRuntime } from '../cli/build-runtime.js';
import { resolveWorkspace, runWorkspace } from '../cli/session-workspace.js';
import { UserError } from '../core/errors.js';
import { loomHome } from '../core/home.js';
import { InteractionBroker } from './interaction-broker.js';
import { appendHistory, historyFileOf, readHistory } from './prompt-history.js';
import { TuiSession, workspaceSessions } from './tui-session.js';
import { TuiStore } from './tui-store.js';

export interface TuiOptions {
  resume?: string;
  continue?: boolean;
  model?: string;
  cwd?: string;
}

export const NO_TERMINAL_USAGE = `loom: the interactive session needs a terminal (stdin and stdout).
For one headless turn: loom run "your prompt" (or pipe the prompt: echo "..." | loom run)
See loom --help for every command.
`;

export async function tuiCommand(options: TuiOptions): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(NO_TERMINAL_USAGE);
    return 2;
  }
  if (options.resume !== undefined && options.continue) {
    throw new UserError('INVALID_ARGUMENT', '--resume and --continue cannot be used together');
  }
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
  // The MCP servers start with the session, before the screen takes the terminal.
  await setup.mcp.ready(handle);
  const session = new TuiSession(setup, broker, handle);
  const store = new TuiStore(setup, session.current, broker);
  const historyFile = historyFileOf(home, cwd);
  const history = readHistory(historyFile);
  const { renderApp } = await import('./app.js');
  let exit = () => {};
  const exited = new Promise<void>((resolve) => {
    exit = resolve;
  });
  const instance = renderApp({
    store,
    session,
    history,
    onSubmitHistory(text: string) {
      history.push(text);
      appendHistory(historyFile, text);
    },
    onExit: () => exit(),
  });
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
