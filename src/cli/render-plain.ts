/**
 * Human rendering of a running turn: the answer streams to stdout, tool calls and problems go
 * briefly to stderr. Reads session events only; never changes them.
 */
import type { SessionEvent } from '../core/session-events.js';

export interface PlainRenderer {
  render(event: SessionEvent): void;
  /** Ends the answer with a newline if it streamed any text. */
  finish(): void;
}

function summarize(value: unknown, limit = 80): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = (text ?? '').replace(/\s+/g, ' ');
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

export function plainRenderer(
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
): PlainRenderer {
  let openLine = false;
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
          stderr.write(`▸ ${data.name} ${summarize(data.arguments)}\n`);
          return;
        }
        case 'tool/result': {
          const data = event.data as SessionEvent<'tool/result'>['data'];
          if (data.isError) stderr.write(`  ✗ ${data.name}: ${summarize(data.content, 160)}\n`);
          return;
        }
        case 'model/retry': {
          const data = event.data as SessionEvent<'model/retry'>['data'];
          stderr.write(
            `  model attempt ${data.attempt} failed (${data.error.message}); retrying\n`,
          );
          return;
        }
        case 'turn/end': {
          const data = event.data as SessionEvent<'turn/end'>['data'];
          endLine();
          if (data.error) stderr.write(`error: ${data.error.message}\n`);
          else if (data.reason === 'aborted') stderr.write('interrupted\n');
          return;
        }
        default:
          return;
      }
    },
    finish: endLine,
  };
}
