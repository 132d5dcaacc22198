/**
 * Progress of `loom workflow run` on stderr, rendered from the `workflow/*` events alone. On a
 * terminal a small block is redrawn in place (at most ten times a second, by an unref'd timer);
 * elsewhere each event is one plain line, the lines of one turn of the event loop written
 * together at its end (and before anything else the view writes). A run that completed with
 * failed agents ends with them (label, reason) and the commands that report and resume it. Never
 * writes to stdout, which belongs to `--json`, and never throws into the emitter.
 */
import type { Usage } from '../llm/contract.js';
import { formatCost } from '../llm/prices.js';
import type { WorkflowEventRecord, WorkflowResult } from '../workflow/contract.js';
import { describeWorkflowEvent, formatTokens, slotsText } from '../workflow/run-events.js';
import { describeEnding, failedAgentsOf } from '../workflow/run-outcome.js';
import { WorkflowProgressState } from './workflow-progress-state.js';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressView {
  record(event: WorkflowEventRecord): void;
  /** A status line from the command itself (such as "cancelling…"). */
  notice(message: string): void;
  /** Stops redrawing without a summary (the run never started); idempotent. */
  abandon(): void;
  /** Stops redrawing and prints the final summary; idempotent. */
  finish(result: WorkflowResult): void;
  /** Tokens reported by the agent-end events so far. */
  tokens(): Usage;
}

/** Starts and stops the redraw timer; tests pass their own to see and drive it. */
export interface RedrawTimer {
  /** Calls `tick` every `intervalMs` until `stop`; must not keep the process alive. */
  start(tick: () => void, intervalMs: number): { stop(): void };
}

const unrefInterval: RedrawTimer = {
  start(tick, intervalMs) {
    const handle = setInterval(tick, intervalMs);
    handle.unref();
    return { stop: () => clearInterval(handle) };
  },
};

export interface ProgressOptions {
  output: ProgressOutput;
  /** Default: `output.isTTY`. */
  live?: boolean;
  /** Redraw interval of the live block; default 100 ms. */
  intervalMs?: number;
  now?: () => number;
  /** Default: an unref'd `setInterval`. */
  redrawTimer?: RedrawTimer;
}

const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const BOLD = '\x1b[1m';
const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const YELLOW = '\x1b[33m';
const CYAN = '\x1b[36m';

export function formatElapsed(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
}

/** The one-line summary printed when the run has settled (both modes). */
export function summaryLine(
  state: WorkflowProgressState,
  result: WorkflowResult,
  elapsedMs: number,
): string {
  const { completed, failed, cancelled } = state.counts;
  const error = result.error ? `: ${result.error.code}: ${result.error.message}` : '';
  const journal = state.journaled > 0 ? ` (${state.journaled} from the journal)` : '';
  const cost = result.costUsd !== undefined ? `, cost ${formatCost(result.costUsd)}` : '';
  return (
    `workflow ${result.name} ${describeEnding(result)} in ${formatElapsed(elapsedMs)}: ` +
    `${result.agentsStarted} agents (${completed} done${journal}, ${failed} failed, ${cancelled} cancelled), ` +
    `tokens ${formatTokens(state.usage.input)} in / ${formatTokens(state.usage.output)} out${cost}${error}`
  );
}

/** Characters of a failed agent's reason in the closing lines; `--json` has all of it. */
const REASON_LENGTH = 300;

/**
 * The lines after the summary of a run that completed with failed agents: each one (seq, label,
 * reason), then the run id with the commands that report it and run the failed agents again.
 * None for any other ending.
 */
export function closingLines(result: WorkflowResult): string[] {
  if (failedAgentsOf(result) === 0) return [];
  const { runId } = result;
  return [
    `failed agents of run ${runId}:`,
    ...result.failures.map(({ seq, label, outcome, reason }) => {
      const why = clip(oneLine(reason), REASON_LENGTH);
      return `  #${seq} ${oneLine(label)}: ${outcome === 'cancelled' ? 'cancelled: ' : ''}${why}`;
    }),
    `see the run: loom workflow report ${runId}`,
    `run the failed agents again: loom workflow run --resume ${runId}`,
  ];
}

/** Line breaks, tabs and terminal control characters (an agent's stderr may hold some) as spaces. */
function oneLine(text: string): string {
  return text.replace(/\p{Cc}+/gu, ' ').trim();
}

/** One plain line for an event (non-terminal output). */
export const plainLine = describeWorkflowEvent;

function clip(line: string, width: number): string {
  return line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;
}

/** The live block: name and elapsed, phase list, agent counts and tokens, running agents, logs. */
export function liveBlock(
  state: WorkflowProgressState,
  elapsedMs: number,
  width: number,
): string[] {
  const plainLines: Array<{ text: string; colour?: string }> = [];
  const nested = state.nestedPhase ? ` › ${state.nestedPhase}` : '';
  const phase = state.phase || nested ? ` · ${state.phase ?? ''}${nested}` : '';
  plainLines.push({
    text: `◆ workflow ${state.name || '…'}${phase} · ${formatElapsed(elapsedMs)}`,
    colour: BOLD,
  });
  const phases = state.phaseList();
  if (phases.length > 0) {
    const marks = phases.map(({ title, status }) =>
      status === 'done' ? `✓ ${title}` : status === 'current' ? `▸ ${title}` : `· ${title}`,
    );
    plainLines.push({ text: `  phases  ${marks.join('   ')}`, colour: CYAN });
  }
  const { running, completed, failed, cancelled } = state.counts;
  const slots = state.slots !== undefined ? ` of ${slotsText(state.slots)}` : '';
  const journal = state.journaled > 0 ? ` (${state.journaled} journal)` : '';
  const cost = state.costUsd !== undefined ? ` · ${formatCost(state.costUsd)}` : '';
  plainLines.push({
    text:
      `  agents  ${running} running${slots} · ${completed} done${journal} · ${failed} failed · ${cancelled} cancelled` +
      `   tokens ${formatTokens(state.usage.input)} in / ${formatTokens(state.usage.output)} out${cost}`,
    colour: failed > 0 ? YELLOW : GREEN,
  });
  const labels = state.runningLabels(3);
  if (labels.shown.length > 0) {
    const more = labels.more > 0 ? `, +${labels.more} more` : '';
    plainLines.push({ text: `  running ${labels.shown.join(', ')}${more}`, colour: DIM });
  }
  for (const message of state.logs) plainLines.push({ text: `  log     ${message}`, colour: DIM });
  if (state.notice) plainLines.push({ text: `  ${state.notice}`, colour: YELLOW });
  return plainLines.map(({ text, colour }) => {
    const clipped = clip(text.replace(/[\r\n\t]+/g, ' '), width);
    return colour ? `${colour}${clipped}${RESET}` : clipped;
  });
}

export function createProgressView(options: ProgressOptions): ProgressView {
  const { output } = options;
  const now = options.now ?? Date.now;
  const live = options.live ?? output.isTTY === true;
  const state = new WorkflowProgressState();
  const began = now();
  let drawnLines = 0;
  let dirty = true;
  let lastDraw = 0;
  let finished = false;
  /** Plain lines recorded in this turn of the loop, not written yet. */
  let pending = '';

  const writeNow = (text: string) => {
    try {
      output.write(text);
    } catch {
      // A closed stderr leaves nowhere to show progress; the run itself must go on.
    }
  };
  const flush = () => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    writeNow(text);
  };
  const write = (text: string) => {
    flush();
    writeNow(text);
  };
  /** One write per turn for a burst of events: a write is a system call on a pipe or a file. */
  const writeLater = (line: string) => {
    if (pending === '') setImmediate(flush);
    pending += line;
  };
  const draw = () => {
    const width = Math.max(20, (output.columns || 100) - 1);
    const lines = liveBlock(state, now() - began, width);
    const up = drawnLines > 0 ? `\x1b[${drawnLines}A\r` : '';
    write(`${up}${lines.map((line) => `\x1b[2K${line}\n`).join('')}\x1b[J`);
    drawnLines = lines.length;
    dirty = false;
    lastDraw = now();
  };
  const timer = live
    ? (options.redrawTimer ?? unrefInterval).start(() => {
        if (dirty || now() - lastDraw >= 1000) draw();
      }, options.intervalMs ?? 100)
    : undefined;

  return {
    record(event) {
      if (finished) return;
      state.apply(event);
      if (live && drawnLines === 0) draw();
      else if (live) dirty = true;
      else if (event.type !== 'workflow/end') writeLater(`${plainLine(event)}\n`);
    },
    notice(message) {
      if (finished) return;
      state.notice = message;
      if (live) dirty = true;
      else write(`${message}\n`);
    },
    abandon() {
      if (finished) return;
      finished = true;
      timer?.stop();
      flush();
      if (live && drawnLines > 0) write(`\x1b[${drawnLines}A\r\x1b[J`);
    },
    finish(result) {
      if (finished) return;
      finished = true;
      timer?.stop();
      if (live) draw();
      const failed = failedAgentsOf(result) > 0;
      const colour =
        result.stopReason === 'completed' && !failed
          ? GREEN
          : result.stopReason === 'error'
            ? RED
            : YELLOW;
      const summary = summaryLine(state, result, now() - began);
      const closing = closingLines(result)
        .map((line) => `${line}\n`)
        .join('');
      write(live ? `${colour}${summary}${RESET}\n${closing}` : `${summary}\n${closing}`);
    },
    tokens: () => ({ ...state.usage }),
  };
}
