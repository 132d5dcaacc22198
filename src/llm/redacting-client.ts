/**
 * The outermost layer of every API model client: no part it streams can carry a credential,
 * whatever the layers inside it did or the provider echoed: `error` and `attempt-failed`
 * messages are redacted, and text and reasoning pass a `CredentialTextStream`, so a key the
 * model repeats in pieces is caught too. It never throws: a throw from the inner client becomes
 * an `error` part, redacted like the rest.
 */

import { redactCredentials } from '../base/credential-redaction.js';
import { type CredentialRedactor, redactorFor } from '../base/credential-redactor.js';
import { CredentialTextStream } from '../base/credential-stream.js';
import { errorMessage } from '../base/errors.js';
import type { ModelClient, ModelErrorInfo, ModelRequest, ModelStreamPart } from './contract.js';
import { abortedError } from './model-failure.js';

const unreadableMessage = 'the provider failed and its error could not be shown safely';

/** `credentials` is read per message, so a key set after the client was made is covered too. */
export function redactingModelClient(
  client: ModelClient,
  credentials: () => readonly string[],
): ModelClient {
  const redact = (error: ModelErrorInfo): ModelErrorInfo => ({
    ...error,
    message: redactMessage(error.message, credentials),
  });
  return {
    id: client.id,
    ...(client.limits ? { limits: client.limits } : {}),
    ...(client.reasoningControl ? { reasoningControl: client.reasoningControl.bind(client) } : {}),
    stream: (request) => redactedStream(client, request, redact, textRedactor(credentials)),
  };
}

/** Redacts `message`; when that fails (a credentials getter that throws), says so instead. */
export function redactMessage(message: string, credentials: () => readonly string[]): string {
  try {
    return redactCredentials(message, credentials());
  } catch {
    return unreadableMessage;
  }
}

/** The redactor of the credentials now; none when they cannot be read (the session log still redacts). */
function textRedactor(credentials: () => readonly string[]): () => CredentialRedactor {
  return () => {
    try {
      return redactorFor(credentials().map((value) => ({ value, kind: 'secret' as const })));
    } catch {
      return redactorFor([]);
    }
  };
}

async function* redactedStream(
  client: ModelClient,
  request: ModelRequest,
  redact: (error: ModelErrorInfo) => ModelErrorInfo,
  redactor: () => CredentialRedactor,
): AsyncGenerator<ModelStreamPart> {
  const current = redactor();
  const streams = {
    text: new CredentialTextStream(current),
    reasoning: new CredentialTextStream(current),
  };
  function* held(): Generator<ModelStreamPart> {
    for (const type of ['text', 'reasoning'] as const) {
      const text = streams[type].end();
      if (text !== '') yield { type, text };
    }
  }
  try {
    for await (const part of client.stream(request)) {
      if (part.type === 'text' || part.type === 'reasoning') {
        const text = streams[part.type].push(part.text);
        if (text !== '') yield { type: part.type, text };
        continue;
      }
      yield* held();
      if (part.type === 'error' || part.type === 'attempt-failed') {
        yield { ...part, error: redact(part.error) };
      } else {
        yield part;
      }
    }
    yield* held();
  } catch (error) {
    yield* held();
    const failure: ModelErrorInfo = request.signal.aborted
      ? abortedError()
      : { message: `model client ${client.id} threw: ${errorMessage(error)}`, retryable: false };
    yield { type: 'error', error: redact(failure) };
  }
}
