/**
 * `loom run`'s status line on a terminal: while a turn runs, one line on stderr (spinner,
 * elapsed time, tokens so far, what happens, how to interrupt) redrawn in place on the
 * terminal's shared ticker, erased before anything else is printed and never drawn beside an
 * open line of the answer. Off a terminal it adds nothing: stdout and piped stderr stay as
 * they were.
 */
import type { SessionEvent } from '../core/session-events.js';
import { ActivityFold, activityLine, describeActivity } from '../tui/activity-state.js';
import { sharedTicker, type Ticker } from '../tui/ticker.js';
import type { PlainRenderer } from './render-plain.js';

const ERASE_LINE = '\r\x1b[2K';

export interface RunStatusOptions {
  /** How many agents run under the session now. */
  agents(): number;
  now?: () => number;
  ticker?: Ticker;
}

/** `renderer` with the status line drawn on `stderr` when it is a terminal; else `renderer`. */
export function withRunStatusLine(
  renderer: PlainRenderer,
  stderr: NodeJS.WriteStream | NodeJS.WritableStream,
  options: RunStatusOptions,
): PlainRenderer {
  if (!('isTTY' in stderr) || stderr.isTTY !== true) return renderer;
  const terminal = stderr as NodeJS.WriteStream;
  const now = options.now ?? Date.now;
  const ticker = options.ticker ?? sharedTicker;
  const fold = new ActivityFold();
  let drawn = false;
  let stopTicks: (() => void) | undefined;
  const erase = () => {
    if (drawn) terminal.write(ERASE_LINE);
    drawn = false;
  };
  const draw = (tick: number) => {
    const activity = fold.current;
    if (!activity || renderer.lineOpen) return;
    fold.agents(options.agents());
    const line = activityLine(describeActivity(activity, now()), tick, 'ctrl+c');
    const room = Math.max(10, (terminal.columns ?? 80) - 1);
    const shown = line.length > room ? `${line.slice(0, room - 1)}…` : line;
    terminal.write(`${ERASE_LINE}\x1b[2m${shown}\x1b[22m`);
    drawn = true;
  };
  const stop = () => {
    stopTicks?.();
    stopTicks = undefined;
    erase();
  };
  return {
    render(event: SessionEvent) {
      erase();
      renderer.render(event);
      fold.apply(event);
      if (!fold.current) {
        stop();
        return;
      }
      stopTicks ??= ticker.subscribe(draw);
      draw(ticker.count);
    },
    finish() {
      stop();
      renderer.finish();
    },
    get lineOpen() {
      return renderer.lineOpen;
    },
  };
}
