/**
 * A run that could not start (`loom run`, `loom workflow run`): one line on stderr and, with
 * `--json`, one JSON object on stdout, `{"error": "message", "code": "CODE"}`, so a program that
 * reads stdout learns why instead of reading nothing. `code` is the error's LoomError code, else
 * INTERNAL. Credential values of the environment never reach either stream.
 */

import { credentialValues, redactCredentials } from '../core/credential-redaction.js';
import { errorMessage, LoomError } from '../core/errors.js';

/** What `--json` prints when a run cannot start. */
export interface StartErrorObject {
  error: string;
  code: string;
}

export function startErrorObject(error: unknown): StartErrorObject {
  return {
    error: redactCredentials(errorMessage(error), credentialValues(process.env)),
    code: error instanceof LoomError ? error.code : 'INTERNAL',
  };
}

/** Writes `loom: LINE` to stderr and, when `json`, the error object to stdout. */
export function writeStartError(error: unknown, line: string, json: boolean | undefined): void {
  process.stderr.write(`loom: ${redactCredentials(line, credentialValues(process.env))}\n`);
  if (json) process.stdout.write(`${JSON.stringify(startErrorObject(error))}\n`);
}
