/**
 * Derives the model's conversation from the session log alone, incrementally. A tool call
 * whose result was never logged (a crash or an abort between call and result) gets a synthetic
 * error result, so the rebuilt history is always one a provider accepts. Must never read
 * anything but logged events.
 */
import type { ImageReference, ModelMessage, ModelToolCall } from '../llm/contract.js';
import type { SessionEvent } from './session-events.js';

export const MISSING_RESULT_TEXT =
  'No result was recorded for this call: the turn was interrupted.';

export class MessageProjection {
  private readonly messages: ModelMessage[] = [];
  /** The `seq` each message came from; a synthetic result has its call's (the assistant message's). */
  private readonly seqs: number[] = [];
  private pending: ModelToolCall[] = [];
  /** The `seq` of the assistant message whose calls are pending. */
  private pendingSeq = 0;
  private consumed = 0;

  /** Folds events appended since the last call; `events` must be the same growing list. */
  update(events: readonly SessionEvent[]): ModelMessage[] {
    for (; this.consumed < events.length; this.consumed++) {
      const event = events[this.consumed];
      if (event) this.fold(event);
    }
    return this.snapshot();
  }

  /**
   * The `seq` of the event each message of the last `update` came from, in the same order. The
   * messages of the events up to a `seq` are exactly those whose origin is at most that `seq`.
   */
  origins(): number[] {
    return [...this.seqs, ...this.pending.map(() => this.pendingSeq)];
  }

  private snapshot(): ModelMessage[] {
    if (this.pending.length === 0) return [...this.messages];
    return [...this.messages, ...this.pending.map(missingResult)];
  }

  private push(message: ModelMessage, seq: number): void {
    this.messages.push(message);
    this.seqs.push(seq);
  }

  private fold(event: SessionEvent): void {
    switch (event.type) {
      case 'user/message': {
        this.closePending();
        const data = event.data as SessionEvent<'user/message'>['data'];
        const message: ModelMessage = { role: 'user', content: data.text };
        if (data.images && data.images.length > 0) message.images = data.images.map(copyImage);
        this.push(message, event.seq);
        return;
      }
      case 'assistant/message': {
        this.closePending();
        const data = event.data as SessionEvent<'assistant/message'>['data'];
        const message: ModelMessage = {
          role: 'assistant',
          text: data.text,
          toolCalls: data.toolCalls,
        };
        if (data.reasoning) message.reasoning = data.reasoning;
        if (data.reasoning && data.reasoningSignature !== undefined) {
          message.reasoningSignature = data.reasoningSignature;
        }
        this.push(message, event.seq);
        this.pending = [...data.toolCalls];
        this.pendingSeq = event.seq;
        return;
      }
      case 'tool/result': {
        const data = event.data as SessionEvent<'tool/result'>['data'];
        // An inner call (Code Mode) reaches the model only through its enclosing call's result.
        if (data.parentCallId !== undefined) return;
        const index = this.pending.findIndex((call) => call.id === data.callId);
        if (index < 0) return;
        this.pending.splice(index, 1);
        const message: ModelMessage = {
          role: 'tool',
          callId: data.callId,
          toolName: data.name,
          content: data.content,
          isError: data.isError,
        };
        if (data.images && data.images.length > 0) message.images = data.images.map(copyImage);
        this.push(message, event.seq);
        return;
      }
      case 'turn/end':
        this.closePending();
        return;
      default:
        return;
    }
  }

  private closePending(): void {
    for (const call of this.pending) this.push(missingResult(call), this.pendingSeq);
    this.pending = [];
  }
}

/** A copy with exactly the reference's fields, so no message shares an object with the log. */
function copyImage(image: ImageReference): ImageReference {
  const copy: ImageReference = {
    type: 'image',
    mediaType: image.mediaType,
    blob: image.blob,
    bytes: image.bytes,
  };
  if (image.width !== undefined) copy.width = image.width;
  if (image.height !== undefined) copy.height = image.height;
  return copy;
}

function missingResult(call: ModelToolCall): ModelMessage {
  return {
    role: 'tool',
    callId: call.id,
    toolName: call.name,
    content: MISSING_RESULT_TEXT,
    isError: true,
  };
}

/** The whole conversation a model would see for these events. */
export function deriveMessages(events: readonly SessionEvent[]): ModelMessage[] {
  return new MessageProjection().update(events);
}
