/**
 * Human rendering of a running turn: the answer streams to stdout; tool calls, their progress,
 * a one-line gist of each result, the todo list when it changes, retries, the context filling or compacted, a
 * hook that blocked or failed, and problems go briefly to stderr
 * (dimmed on a terminal unless NO_COLOR is set); a call made inside another (a `run_code`
 * program's, with `parentCallId`) is indented under it. Reads session events only; never
 * changes them.
 */
import {
  contextCompactLine,
  contextSkippedLine,
  contextWarningLine,
} from '../context/context-lines.js';
import type { SessionEvent } from '../core/session-events.js';
import { progressText } from '../core/tool-execution.js';
import { hookRunLine, hookRunWorthTelling } from '../project/hook-line.js';
import { todoChangePrinter } from './render-todos.js';

export interface PlainRenderer {
  render(event: SessionEvent): void;
  /** Ends the answer with a newline if it streamed any text. */
  finish(): void;
  /** Whether the answer's last line is still open (streamed text without its newline). */
  readonly lineOpen: boolean;
}

function summarize(value: unknown, limit = 80): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** The one line a context event reads as (`context-lines.ts`). */
function contextLineOf(event: SessionEvent): string {
  switch (event.type) {
    case 'context/warning':
      return contextWarningLine(event.data as SessionEvent<'context/warning'>['data']);
    case 'context/compact':
      return contextCompactLine(event.data as SessionEvent<'context/compact'>['data']);
    default:
      return contextSkippedLine(event.data as SessionEvent<'context/compact-skipped'>['data']);
  }
}

function styles(enabled: boolean) {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return { dim: wrap(2, 22), red: wrap(31, 39), cyan: wrap(36, 39) };
}

export function plainRenderer(
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WriteStream | NodeJS.WritableStream,
): PlainRenderer {
  const style = styles('isTTY' in stderr && stderr.isTTY === true && !process.env.NO_COLOR);
  let openLine = false;
  const todoChanges = todoChangePrinter();
  /** How deep each open call is nested: 0 for the model's own calls. */
  const depthOf = new Map<string, number>();
  /** The call whose line is the last on stderr, so its result needs no name. */
  let lastCallLine: string | undefined;
  const endLine = () => {
    if (openLine) stdout.write('\n');
    openLine = false;
  };
  return {
    render(event) {
      switch (event.type) {
        case 'assistant/chunk': {
          const data = event.data as SessionEvent<'assistant/chunk'>['data'];
          if (data.kind !== 'text' || data.text.length === 0) return;
          stdout.write(data.text);
          openLine = !data.text.endsWith('\n');
          return;
        }
        case 'tool/call': {
          const data = event.data as SessionEvent<'tool/call'>['data'];
          endLine();
          const depth =
            data.parentCallId === undefined ? 0 : (depthOf.get(data.parentCallId) ?? 0) + 1;
          depthOf.set(data.callId, depth);
          stderr.write(
            `${'  '.repeat(depth)}${style.cyan('▸')} ${data.name} ${style.dim(summarize(data.arguments))}\n`,
          );
          lastCallLine = data.callId;
          return;
        }
        case 'tool/progress': {
          const data = event.data as SessionEvent<'tool/progress'>['data'];
          const depth = depthOf.get(data.callId);
          if (depth === undefined) return;
          endLine();
          stderr.write(`${'  '.repeat(depth + 1)}${style.dim(`… ${progressText(data)}`)}\n`);
          return;
        }
        case 'tool/result': {
          const data = event.data as SessionEvent<'tool/result'>['data'];
          const depth = depthOf.get(data.callId) ?? (data.parentCallId === undefined ? 0 : 1);
          depthOf.delete(data.callId);
          // Inner calls of a program often run together: a result away from its call names it.
          const named = depth > 0 && lastCallLine !== data.callId ? `${data.name}: ` : '';
          const gist = `${named}${summarize(data.content, 100)}`;
          const indent = '  '.repeat(depth + 1);
          if (data.isError) stderr.write(`${indent}${style.red('✗')} ${style.dim(gist)}\n`);
          else stderr.write(`${indent}${style.dim(`✓ ${gist}`)}\n`);
          lastCallLine = undefined;
          return;
        }
        case 'todo/write': {
          const lines = todoChanges(event);
          if (!lines) return;
          endLine();
          stderr.write(lines.map((line) => `${line}\n`).join(''));
          lastCallLine = undefined;
          return;
        }
        case 'model/retry': {
          const data = event.data as SessionEvent<'model/retry'>['data'];
          const wait = Math.round(data.delayMs);
          stderr.write(
            style.dim(
              `  attempt ${data.attempt} failed (${data.error.message}); retrying in ${wait} ms\n`,
            ),
          );
          lastCallLine = undefined;
          return;
        }
        case 'context/warning':
        case 'context/compact':
        case 'context/compact-skipped':
          endLine();
          stderr.write(style.dim(`${contextLineOf(event)}\n`));
          lastCallLine = undefined;
          return;
        case 'hook/run': {
          const data = event.data as SessionEvent<'hook/run'>['data'];
          if (!hookRunWorthTelling(data)) return;
          endLine();
          stderr.write(`${style.dim(hookRunLine(data))}\n`);
          lastCallLine = undefined;
          return;
        }
        case 'turn/end': {
          const data = event.data as SessionEvent<'turn/end'>['data'];
          endLine();
          depthOf.clear();
          lastCallLine = undefined;
          if (data.error) stderr.write(`${style.red('error:')} ${data.error.message}\n`);
          else if (data.reason === 'aborted' || data.reason === 'interrupted')
            stderr.write(`${style.red('interrupted')}\n`);
          return;
        }
        default:
          return;
      }
    },
    finish: endLine,
    get lineOpen() {
      return openLine;
    },
  };
}
