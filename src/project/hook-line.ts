/**
 * The one line a person reads about a hook's run, in the terminal and on a headless run's
 * stderr: `hook PreToolUse bash: ./no-rm.sh → blocked: rm is not allowed (12 ms)`. Pure.
 */
import { assertNever } from '../base/errors.js';
import type { HookRunEvent } from './hook-contract.js';

const COMMAND_CHARACTERS = 60;
const REASON_CHARACTERS = 120;

export function hookRunLine(run: HookRunEvent): string {
  const what = run.tool !== undefined ? `${run.event} ${run.tool}` : run.event;
  return `hook ${what}: ${cut(run.command, COMMAND_CHARACTERS)} → ${outcome(run)} (${run.ms} ms)`;
}

/** Whether a headless run tells the person about it: a block, or a hook that failed. */
export function hookRunWorthTelling(run: HookRunEvent): boolean {
  return run.decision === 'block' || run.decision === 'warning';
}

function outcome(run: HookRunEvent): string {
  const reason = run.reason !== undefined ? `: ${cut(run.reason, REASON_CHARACTERS)}` : '';
  switch (run.decision) {
    case 'block':
      return `blocked${reason}`;
    case 'approve':
      return 'approved';
    case 'ask':
      return `asks${reason}`;
    case 'none':
      return 'ok';
    case 'warning':
      return `failed${reason}, went on`;
    default:
      return assertNever(run.decision, 'hook decision');
  }
}

/** The first line of `text`, at most `limit` characters. */
function cut(text: string, limit: number): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}
