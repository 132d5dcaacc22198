/**
 * `loom` with no command: the interactive session on a terminal (`--resume ID` reopens a stored
 * session, `--continue` the latest of this workspace). Without a terminal on both stdin and
 * stdout it prints a short usage pointing at `loom run` and exits 2. It puts the terminal in raw
 * mode and draws the first frame (first-frame.ts) before anything heavy loads, so the prompt is
 * on the screen at once and keys typed meanwhile wait for ink; then tui-run.ts loads the
 * runtime, ink and React. Other commands never load this path. At exit the session id is printed.
 */
import { resolve } from 'node:path';
import { UserError } from '../base/errors.js';
import { colorsEnabled, drawFirstFrame } from './first-frame.js';
import type { TuiOptions } from './tui-options.js';

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
  // Raw before drawing: from here on a key is neither echoed nor lost; it waits for ink.
  process.stdin.setRawMode(true);
  const firstFrame = drawFirstFrame(process.stdout, process.stderr, {
    columns: process.stdout.columns,
    workspace: resolve(options.cwd ?? process.cwd()),
    colors: colorsEnabled(process.env),
  });
  try {
    // ink and the app load alongside the runtime, so the reading of one overlaps the compiling
    // of the other; a failure to load surfaces where runTui awaits it.
    const app = import('./app.js');
    app.catch(() => {});
    const { runTui } = await import('./tui-run.js');
    return await runTui(options, firstFrame, app);
  } catch (error) {
    // Failed before ink drew (a bad model, a wrong workspace): leave the terminal as it was.
    firstFrame.clear();
    process.stdin.setRawMode(false);
    throw error;
  }
}
