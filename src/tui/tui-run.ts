/**
 * The interactive session once its first frame is on the screen (tui-command.ts drew it): ink
 * shows the starting screen (keys typed are handled from here on), then the runtime loads and
 * the session opens (tui-open.ts), the app takes the starting screen's place and acts on what was
 * typed meanwhile; when the person leaves, the session closes and its id is printed.
 */
import { resolve } from 'node:path';
import { loomHome } from '../core/home.js';
import type { FirstFrame } from './first-frame.js';
import { appendHistory, historyFileOf, readHistory } from './prompt-history.js';
import type { TuiOptions } from './tui-command.js';

export async function runTui(
  options: TuiOptions,
  firstFrame: FirstFrame,
  app: Promise<typeof import('./app.js')>,
): Promise<number> {
  const home = loomHome();
  const workspace = resolve(options.cwd ?? process.cwd());
  // A reopened session's history is its workspace's, known once the session is read.
  const history = options.resume === undefined ? readHistory(historyFileOf(home, workspace)) : [];
  let exit = () => {};
  const exited = new Promise<void>((resolve) => {
    exit = resolve;
  });
  const { renderStarting } = await app;
  const start = renderStarting({ history, workspace, onExit: () => exit() }, firstFrame);
  let opened: import('./tui-open.js').OpenedSession;
  try {
    const { openSession } = await import('./tui-open.js');
    opened = openSession(options, home);
  } catch (error) {
    await start.fail();
    throw error;
  }
  const { cwd, session, store } = opened;
  const historyFile = historyFileOf(home, cwd);
  if (options.resume !== undefined) history.push(...readHistory(historyFile));
  start.showApp({
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
  start.instance.unmount();
  await start.instance.waitUntilExit();
  store.dispose();
  await session.close();
  process.stdout.write(
    `session ${session.sessionId}\nresume it with: loom --resume ${session.sessionId}\n`,
  );
  return 0;
}
