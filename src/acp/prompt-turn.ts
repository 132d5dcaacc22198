/**
 * The two ends of an ACP prompt turn: the request's content blocks become the text Loom's agent
 * is prompted with, and the turn's outcome becomes a stop reason. A failed turn has no stop
 * reason in ACP, so it rejects the request with an internal error carrying the turn's message.
 */
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import { assertNever } from '../base/errors.js';
import type { TurnOutcome } from '../core/agent-hooks.js';

/** Text blocks verbatim, resource links as their URI; any other block is refused by name. */
export function promptTextOf(blocks: readonly ContentBlock[]): string {
  const parts = blocks.map((block, index) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource_link':
        return `${block.name}: ${block.uri}`;
      default:
        throw RequestError.invalidParams(
          { field: `prompt[${index}].type`, value: block.type },
          `loom takes text and resource_link prompt blocks, not ${block.type}`,
        );
    }
  });
  const text = parts.join('\n').trim();
  if (text.length === 0)
    throw RequestError.invalidParams({ field: 'prompt' }, 'the prompt is empty');
  return text;
}

export function stopReasonOf(outcome: TurnOutcome): StopReason {
  switch (outcome.reason) {
    case 'completed':
      return 'end_turn';
    case 'aborted':
    case 'interrupted':
      return 'cancelled';
    case 'max-tokens':
      return 'max_tokens';
    case 'error':
      if (outcome.error.code === 'STEP_LIMIT') return 'max_turn_requests';
      throw RequestError.internalError(
        outcome.error.code ? { code: outcome.error.code } : undefined,
        outcome.error.message,
      );
    default:
      return assertNever(outcome, 'turn outcome');
  }
}
