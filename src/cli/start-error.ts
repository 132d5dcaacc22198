/**
 * A run that could not start (`loom run`, `loom workflow run`): one line on stderr and, with
 * `--json`, one JSON object on stdout, `{"error": "message", "code": "CODE"}`, so a program that
 * reads stdout learns why instead of reading nothing. `code` is the error's LoomError code, else
 * INTERNAL. Both streams pass the command line's output redaction (`output-redaction.ts`).
 */
import { errorMessage, LoomError } from '../base/errors.js';
import { redactedJson } from './output-redaction.js';

/** What `--json` prints when a run cannot start. */
export interface StartErrorObject {
  error: string;
  code: string;
}

export function startErrorObject(error: unknown): StartErrorObject {
  return {
    error: errorMessage(error),
    code: error instanceof LoomError ? error.code : 'INTERNAL',
  };
}

/** Writes `loom: LINE` to stderr and, when `json`, the error object to stdout. */
export function writeStartError(error: unknown, line: string, json: boolean | undefined): void {
  process.stderr.write(`loom: ${line}\n`);
  if (json) process.stdout.write(`${redactedJson(startErrorObject(error))}\n`);
}
