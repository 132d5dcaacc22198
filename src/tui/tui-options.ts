/**
 * The options of `loom` with no command (`--resume ID`, `--continue`, `--model`, `--cwd`), shared
 * by the command that draws the first frame (tui-command.ts) and the run it loads (tui-run.ts).
 * A type only: it must never import anything, so the first frame loads nothing more for it.
 */
export interface TuiOptions {
  resume?: string;
  continue?: boolean;
  model?: string;
  cwd?: string;
}
