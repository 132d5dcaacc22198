/**
 * A span of the conversation as plain text: what a summarization request reads, and what
 * `recall` gives back for a summarized span (`span:FROM-THROUGH`), with every message's own text
 * unchanged. Also the span's id and counts. Pure; reads the events it is given.
 */
import type { SessionEvent } from '../core/session-events.js';
import type { ModelMessage } from '../llm/contract.js';
import { derivedWithOrigins } from './compacted-view.js';

const SPAN_ID = /^span:(\d+)-(\d+)$/;

export function spanId(from: number, through: number): string {
  return `span:${from}-${through}`;
}

/** The seqs a span id names, or undefined when `id` is not a span id. */
export function parseSpanId(id: string): { from: number; through: number } | undefined {
  const match = SPAN_ID.exec(id);
  if (!match) return undefined;
  return { from: Number(match[1]), through: Number(match[2]) };
}

/**
 * One message as text. `cap` (characters) shortens a long text in the middle, saying how much
 * was cut; recall passes none, so its text is the original.
 */
export function messageText(message: ModelMessage, cap = Number.POSITIVE_INFINITY): string {
  const shorten = (text: string) =>
    text.length <= cap
      ? text
      : `${text.slice(0, Math.ceil(cap / 2))}\n[… ${text.length - cap} characters cut …]\n${text.slice(text.length - Math.floor(cap / 2))}`;
  switch (message.role) {
    case 'user':
      return `## user\n${shorten(message.content)}`;
    case 'assistant': {
      const lines = ['## assistant'];
      if (message.text !== '') lines.push(shorten(message.text));
      for (const call of message.toolCalls) {
        lines.push(
          `→ ${call.name} (${call.id}) ${shorten(JSON.stringify(call.arguments) ?? 'null')}`,
        );
      }
      return lines.join('\n');
    }
    case 'tool':
      return `## ${message.isError ? 'error ' : ''}result of ${message.toolName} (${message.callId})\n${shorten(message.content)}`;
    default:
      return '';
  }
}

export function messagesText(
  messages: readonly ModelMessage[],
  cap = Number.POSITIVE_INFINITY,
): string {
  return messages.map((message) => messageText(message, cap)).join('\n\n');
}

/** The original messages of the events `from`..`through`, as core derives them. */
export function spanMessages(
  events: readonly SessionEvent[],
  from: number,
  through: number,
): ModelMessage[] {
  const end = events.findIndex((event) => event.seq > through);
  const { messages, origins } = derivedWithOrigins(end < 0 ? events : events.slice(0, end));
  return messages.filter((_, index) => (origins[index] ?? 0) >= from);
}

/** How many user turns, model steps and tool results `messages` hold. */
export function spanCounts(messages: readonly ModelMessage[]): {
  turns: number;
  steps: number;
  toolResults: number;
} {
  let turns = 0;
  let steps = 0;
  let toolResults = 0;
  for (const message of messages) {
    if (message.role === 'user') turns += 1;
    else if (message.role === 'assistant') steps += 1;
    else toolResults += 1;
  }
  return { turns, steps, toolResults };
}
