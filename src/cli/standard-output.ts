/**
 * How a command leaves the process: `exitAfterDrain` lets stdout and stderr write out every byte
 * they were given before `process.exit`, on every exit path, and a closed stdout (`loom … | head`)
 * ends the command quietly with 141 (128 + SIGPIPE), as a Unix tool would. It never prints a
 * stack trace for a reader that has gone, and never exits with accepted output still unwritten.
 */
import type { Disposer } from '../core/context.js';

/** The exit code when stdout's reader has gone: 128 + SIGPIPE, what a shell reports for `yes | head`. */
export const EXIT_OUTPUT_CLOSED = 141;

/** Told that stdout can take no more; it must end the process. Must not throw. */
export type OutputClosedListener = (exitCode: number) => void;

let guarded = false;
let stdoutFailed = false;
const closedListeners: OutputClosedListener[] = [];

function isClosedReader(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ECONNRESET';
}

function onStdoutError(error: unknown): void {
  if (stdoutFailed) return;
  stdoutFailed = true;
  let exitCode = EXIT_OUTPUT_CLOSED;
  if (!isClosedReader(error)) {
    exitCode = 1;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`loom: cannot write to standard output: ${message}\n`);
  }
  const listener = closedListeners.at(-1);
  if (!listener) process.exit(exitCode);
  try {
    listener(exitCode);
  } catch {
    process.exit(exitCode);
  }
}

/**
 * Installs, once, the error listeners of stdout and stderr: a failed stdout is handed to the
 * latest `onStdoutClosed` listener (none: the process exits 141 at once); a failed stderr is
 * ignored, since nothing could report it.
 */
export function guardStandardOutput(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on('error', onStdoutError);
  process.stderr.on('error', () => {});
}

/** While registered (the latest registration wins), `listener` decides how a closed stdout ends the process. */
export function onStdoutClosed(listener: OutputClosedListener): Disposer {
  closedListeners.push(listener);
  return () => {
    const index = closedListeners.lastIndexOf(listener);
    if (index >= 0) closedListeners.splice(index, 1);
  };
}

/** Resolves once `stream` has handed every byte it accepted to the system (or has failed). */
export function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    try {
      stream.write('', () => resolve());
    } catch {
      resolve();
    }
  });
}

/** Exits with `code` once stdout and stderr are drained; the way every command ends. */
export async function exitAfterDrain(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}
