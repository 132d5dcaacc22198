/**
 * SIGINT, SIGTERM and SIGHUP for a command (SPEC §3), installed once per process: the first signal
 * starts a graceful stop; a second one, or a closed stdout, runs the forced stop, which writes every
 * pending end event and result synchronously, then exits with 128 + the signal's number once output
 * has drained. The forced stop must never wait for anything; no handler may throw.
 */
import { assertNever, errorMessage } from '../base/errors.js';
import { exitAfterDrain, onStdoutClosed } from './standard-output.js';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** Why the forced stop runs: a second signal, or stdout's reader has gone. */
export type ForcedCause = StopSignal | 'output-closed';

export const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export const SIGNAL_EXIT_CODES: Readonly<Record<StopSignal, number>> = {
  SIGINT: 130,
  SIGTERM: 143,
  SIGHUP: 129,
};

export interface StopHandlers {
  /** The first signal: start stopping (cancel the work); the command then ends as usual. */
  graceful(signal: StopSignal): void;
  /** Write, synchronously and now, every end event and result still pending. */
  forced(cause: ForcedCause): void;
}

export interface StopSignals {
  /** The first signal received, if any. */
  readonly received: StopSignal | undefined;
  /**
   * The command's work is over and it only writes its last output: from now on a signal exits at
   * once with its code, and a closed stdout exits 141. Idempotent.
   */
  finish(): void;
}

/** Plain words for the reason a run stops on `signal`, for cancel reasons and logs. */
export function describeStopSignal(signal: StopSignal): string {
  switch (signal) {
    case 'SIGINT':
      return 'interrupted by the user (SIGINT)';
    case 'SIGTERM':
      return 'terminated (SIGTERM)';
    case 'SIGHUP':
      return 'the terminal hung up (SIGHUP)';
    default:
      return assertNever(signal, 'stop signal');
  }
}

function runForced(handlers: StopHandlers, cause: ForcedCause): void {
  try {
    handlers.forced(cause);
  } catch (error) {
    process.stderr.write(`loom: could not finish writing before exiting: ${errorMessage(error)}\n`);
  }
}

export function handleStopSignals(handlers: StopHandlers): StopSignals {
  let received: StopSignal | undefined;
  let count = 0;
  let finished = false;
  let forcedRan = false;
  const forceOnce = (cause: ForcedCause) => {
    if (forcedRan) return;
    forcedRan = true;
    runForced(handlers, cause);
  };
  const onSignal = (signal: StopSignal) => {
    if (finished) process.exit(SIGNAL_EXIT_CODES[signal]);
    count += 1;
    if (count === 1) {
      received = signal;
      try {
        handlers.graceful(signal);
      } catch (error) {
        process.stderr.write(`loom: could not stop gracefully: ${errorMessage(error)}\n`);
      }
      return;
    }
    if (count === 2) {
      forceOnce(signal);
      void exitAfterDrain(SIGNAL_EXIT_CODES[signal]);
      return;
    }
    process.exit(SIGNAL_EXIT_CODES[signal]);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => onSignal(signal));
  const stopWatchingOutput = onStdoutClosed((exitCode) => {
    forceOnce('output-closed');
    process.exit(exitCode);
  });
  return {
    get received() {
      return received;
    },
    finish() {
      if (finished) return;
      finished = true;
      stopWatchingOutput();
    },
  };
}
