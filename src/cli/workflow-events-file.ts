/**
 * `loom workflow run --events FILE`: writes every `workflow/*` event as one NDJSON line, the
 * payload with its name in `type`, without credentials. Each line is written synchronously as
 * the event happens, so the file is complete whenever the process exits, even on a second
 * Ctrl-C. Must never throw
 * into the emitter: a failed write is remembered and reported once by `close`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { errorMessage, UserError } from '../base/errors.js';
import type { WorkflowEventRecord } from '../workflow/contract.js';
import { redactedJson } from './output-redaction.js';

export interface EventsFile {
  write(record: WorkflowEventRecord): void;
  /** Closes the file; returns the first write failure's message, if any. */
  close(): string | undefined;
}

/** Creates (or truncates) `path`; an unwritable path is a UserError naming it. */
export function openEventsFile(path: string): EventsFile {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'w');
  } catch (error) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--events: cannot write ${path}: ${errorMessage(error)}`,
    );
  }
  let failure: string | undefined;
  return {
    write(record) {
      if (descriptor === undefined || failure !== undefined) return;
      try {
        writeSync(descriptor, `${redactedJson(record)}\n`);
      } catch (error) {
        failure = `--events: writing ${path} failed: ${errorMessage(error)}`;
      }
    },
    close() {
      if (descriptor !== undefined) {
        try {
          closeSync(descriptor);
        } catch (error) {
          failure ??= `--events: closing ${path} failed: ${errorMessage(error)}`;
        }
        descriptor = undefined;
      }
      return failure;
    },
  };
}
