/**
 * The two ends of an ACP prompt turn: the request's content blocks become the text (and images)
 * Loom's agent is prompted with, and the turn's outcome becomes a stop reason. A failed turn has no stop
 * reason in ACP, so it rejects the request with an internal error carrying the turn's message.
 */
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import { assertNever, errorMessage } from '../base/errors.js';
import type { TurnOutcome } from '../core/agent-hooks.js';
import type { BlobStore } from '../core/blob-store.js';
import { keepImage } from '../core/image-intake.js';
import type { ImageReference } from '../llm/contract.js';

/**
 * Text blocks verbatim, resource links as their URI; image blocks add no text (`promptImagesOf`
 * keeps them); any other block is refused by name. A prompt of images alone has empty text.
 */
export function promptTextOf(blocks: readonly ContentBlock[]): string {
  const parts = blocks.flatMap((block, index) => {
    switch (block.type) {
      case 'text':
        return [block.text];
      case 'resource_link':
        return [`${block.name}: ${block.uri}`];
      case 'image':
        return [];
      default:
        throw RequestError.invalidParams(
          { field: `prompt[${index}].type`, value: block.type },
          `loom takes text, image and resource_link prompt blocks, not ${block.type}`,
        );
    }
  });
  const text = parts.join('\n').trim();
  if (text.length === 0 && !blocks.some((block) => block.type === 'image'))
    throw RequestError.invalidParams({ field: 'prompt' }, 'the prompt is empty');
  return text;
}

/**
 * The prompt's image blocks, kept in the blob store (scaled down when larger than models take).
 * A block whose data is no PNG, JPEG, GIF or WebP is refused, naming its place in the prompt.
 */
export async function promptImagesOf(
  blocks: readonly ContentBlock[],
  store: BlobStore | undefined,
): Promise<ImageReference[]> {
  const images: ImageReference[] = [];
  for (const [index, block] of blocks.entries()) {
    if (block.type !== 'image') continue;
    const field = `prompt[${index}]`;
    try {
      if (!store) throw new Error('no blob store is set up to keep images');
      if (typeof block.data !== 'string' || block.data.length === 0) {
        throw new Error('its data is empty; send the image base64-encoded in data');
      }
      const bytes = Buffer.from(block.data, 'base64');
      images.push(await keepImage(store, bytes, `the image block ${field} (${block.mimeType})`));
    } catch (error) {
      throw RequestError.invalidParams({ field: `${field}.data` }, errorMessage(error));
    }
  }
  return images;
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
