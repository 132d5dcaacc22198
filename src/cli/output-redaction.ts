/**
 * The last step of everything the command line writes: standard output, standard error and the
 * `--events` file pass `redactOutput`, which removes every credential value of the registries a
 * command registered (config's keys, MCP secrets, Redis URLs) and of credential-like variables.
 * `installOutputRedaction` puts it in front of both streams once, so no writer can go around it.
 * It never throws into a writer: a redactor that fails leaves the text to the next one.
 */

import type { TextRedactor } from '../base/credential-redactor.js';
import type { Disposer } from '../core/context.js';
import { CredentialVariables } from '../core/credential-variables.js';

/** Credential-like variables of Loom's environment, before any config is read. */
const environmentCredentials = new CredentialVariables();
const redactors: TextRedactor[] = [environmentCredentials];
let installed = false;

/** Adds `redactor` to what every output passes, until the undo runs. */
export function redactOutputWith(redactor: TextRedactor): Disposer {
  redactors.push(redactor);
  return () => {
    const index = redactors.indexOf(redactor);
    if (index >= 0) redactors.splice(index, 1);
  };
}

/** `text` as the command line may write it. */
export function redactOutput(text: string): string {
  let result = text;
  for (const redactor of redactors) {
    try {
      result = redactor.redact(result);
    } catch {
      // A redactor must not throw; one that does leaves the text to the others.
    }
  }
  return result;
}

/** `value` as JSON text without credentials, still valid JSON (see `CredentialRedactor.redactJson`). */
export function redactedJson(value: unknown): string {
  const json = JSON.stringify(value);
  const redacted = redactOutput(json);
  if (redacted === json) return json;
  try {
    JSON.parse(redacted);
    return redacted;
  } catch {
    return JSON.stringify(value, (_key, item: unknown) =>
      typeof item === 'string' ? redactOutput(item) : item,
    );
  }
}

type Write = NodeJS.WriteStream['write'];

/** Routes every later write to stdout and stderr through `redactOutput`. Installing twice is harmless. */
export function installOutputRedaction(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(redactedChunk(chunk, rest[0]), ...rest)) as Write;
  }
}

/** A string, or bytes that are UTF-8 text, redacted; anything else as it is. */
function redactedChunk(chunk: unknown, encoding: unknown): unknown {
  if (typeof chunk === 'string') {
    if (typeof encoding === 'string' && encoding !== 'utf8' && encoding !== 'utf-8') return chunk;
    return redactOutput(chunk);
  }
  if (chunk instanceof Uint8Array) {
    const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
    const redacted = redactOutput(text);
    return redacted === text ? chunk : Buffer.from(redacted, 'utf8');
  }
  return chunk;
}
