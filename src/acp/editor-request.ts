/**
 * Asking the editor something on the user's behalf: a request that the asker's signal cancels
 * (rejecting with the signal's reason) and whose failure means nobody could answer (`NO_USER`,
 * with the editor's error), never a protocol error that escapes to the tool.
 */
import { errorMessage } from '../base/errors.js';
import { NO_USER_MESSAGE, UserQuestionError } from '../interaction/user-questions.js';

/** The request's options for the SDK: stop waiting once `signal` aborts. */
export function cancelledBy(signal: AbortSignal | undefined) {
  return signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined;
}

export async function askEditor<Response>(
  send: () => Promise<Response>,
  signal: AbortSignal | undefined,
): Promise<Response> {
  let response: Response;
  try {
    response = await send();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new UserQuestionError(
      'NO_USER',
      `${NO_USER_MESSAGE} (the editor could not ask: ${errorMessage(error)})`,
    );
  }
  if (signal?.aborted) throw signal.reason;
  return response;
}
