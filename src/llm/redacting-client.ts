/**
 * The outermost layer of every API model client: no message it streams (an `error` or an
 * `attempt-failed` part) can carry a credential, whatever the layers inside it did. It never
 * throws: a throw from the inner client becomes an `error` part, redacted like the rest.
 */
import { errorMessage } from '../core/errors.js';
import type { ModelClient, ModelErrorInfo, ModelRequest, ModelStreamPart } from './contract.js';
import { redactCredentials } from './credential-redaction.js';
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
    stream: (request) => redactedStream(client, request, redact),
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

async function* redactedStream(
  client: ModelClient,
  request: ModelRequest,
  redact: (error: ModelErrorInfo) => ModelErrorInfo,
): AsyncGenerator<ModelStreamPart> {
  try {
    for await (const part of client.stream(request)) {
      if (part.type === 'error' || part.type === 'attempt-failed') {
        yield { ...part, error: redact(part.error) };
      } else {
        yield part;
      }
    }
  } catch (error) {
    const failure: ModelErrorInfo = request.signal.aborted
      ? abortedError()
      : { message: `model client ${client.id} threw: ${errorMessage(error)}`, retryable: false };
    yield { type: 'error', error: redact(failure) };
  }
}
