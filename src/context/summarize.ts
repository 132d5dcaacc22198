/**
 * Summarization, the compaction that needs a model call, run only when pruning is not enough
 * (or when a person asks with instructions): it picks the span to summarize (everything before
 * the last `keepSteps` steps), asks the model for a summary of it within a budget that fits the
 * window, and composes the text that stands for it. It appends nothing: the caller logs
 * `context/summarizing` before and the compaction after, so a crash in between leaves a log
 * that loads as if it never started.
 */
import type { SessionEvent } from '../core/session-events.js';
import { emptyUsage, type ModelClient, type ModelMessage, type Usage } from '../llm/contract.js';
import type { CompactedMessages, CompactionFold } from './compacted-view.js';
import type { SummarizedSpan } from './contract.js';
import { messageText, spanCounts, spanId, spanMessages } from './span-text.js';
import {
  SUMMARY_REQUEST_START,
  summaryRequestText,
  summarySystemPrompt,
  summaryText,
} from './summary-prompt.js';

const CHARACTERS_PER_TOKEN = 4;
/** The share of the window the summarization request may fill, output included. */
const REQUEST_SHARE = 0.6;
/** Caps tried, longest first, on each message of the transcript until the request fits. */
const CAPS = [Number.POSITIVE_INFINITY, 8000, 4000, 2000, 1000, 400, 160];

export { SUMMARY_REQUEST_START };

/** Where a summary would cut the view: the index of the first message kept, and the span. */
export interface SummaryCut {
  /** View messages before it are summarized. */
  index: number;
  from: number;
  through: number;
}

/**
 * The cut that keeps the last `keepSteps` steps (and the user message that asked for the first
 * of them); undefined when it would summarize nothing new.
 */
export function chooseCut(
  view: CompactedMessages,
  fold: CompactionFold,
  keepSteps: number,
  events: readonly SessionEvent[],
): SummaryCut | undefined {
  const { messages, origins } = view;
  const steps: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant') steps.push(index);
  });
  let index = keepSteps <= 0 ? messages.length : (steps[steps.length - keepSteps] ?? 0);
  const previous = fold.summary?.through;
  const first = previous === undefined ? 0 : 1;
  if (index > first && messages[index - 1]?.role === 'user') index -= 1;
  if (index <= first) return undefined;
  const lastSeq = events[events.length - 1]?.seq ?? 0;
  const through = index < messages.length ? (origins[index] ?? lastSeq + 1) - 1 : lastSeq;
  const from = previous === undefined ? (events[0]?.seq ?? 1) : previous + 1;
  if (through < from) return undefined;
  return { index, from, through };
}

/** Of `callIds`, those whose results stay in the view after `cut` (the rest are summarized). */
export function prunesAfterCut(
  view: CompactedMessages,
  cut: SummaryCut,
  callIds: readonly string[],
): string[] {
  const kept = new Set<string>();
  view.messages.forEach((message, index) => {
    if (index >= cut.index && message.role === 'tool') kept.add(message.callId);
  });
  return callIds.filter((callId) => kept.has(callId));
}

export interface SummarizeInput {
  events: readonly SessionEvent[];
  view: CompactedMessages;
  fold: CompactionFold;
  cut: SummaryCut;
  model: ModelClient;
  window: number;
  instructions?: string;
  /** The standing-state restatement to end the summary with. */
  state?: string;
  signal?: AbortSignal;
}

export type SummarizeOutcome =
  | { ok: true; summary: string; summarized: SummarizedSpan; usage: Usage }
  | { ok: false; reason: string; usage: Usage };

export async function summarize(input: SummarizeInput): Promise<SummarizeOutcome> {
  const { events, view, fold, cut, window } = input;
  const outputTokens = Math.max(
    400,
    Math.min(4000, Math.floor(window * 0.08), input.model.limits?.output ?? 4000),
  );
  const system = summarySystemPrompt(Math.floor(outputTokens * 0.7));
  const room =
    (Math.floor(window * REQUEST_SHARE) - outputTokens) * CHARACTERS_PER_TOKEN - system.length;
  const summarized = view.messages.slice(fold.summary ? 1 : 0, cut.index);
  const transcript = fitTranscript(fold.summary?.text, summarized, room, input.instructions);
  const request = summaryRequestText(transcript, input.instructions);
  const written = await ask(input.model, system, request, outputTokens, input.signal);
  if (!written.ok) return written;
  const original = spanMessages(events, cut.from, cut.through);
  const counts = spanCounts(original);
  const span: SummarizedSpan = { id: spanId(cut.from, cut.through), from: cut.from, ...counts };
  const openTurn = openTurnOf(view.messages.slice(0, cut.index));
  if (openTurn) span.openTurn = openTurn;
  const summary = summaryText({
    written: written.text,
    span: { id: span.id, ...counts },
    earlierSpans: fold.summary?.spans ?? [],
    toolResultIds: original.flatMap((message) => (message.role === 'tool' ? [message.callId] : [])),
    userWords: userWords(events, cut.through),
    wordsBudget: Math.floor(window * 0.1) * CHARACTERS_PER_TOKEN,
    ...(input.state !== undefined ? { state: input.state } : {}),
  });
  return { ok: true, summary, summarized: span, usage: written.usage };
}

/** The latest prompt among `messages` and the model steps after it, read as the scripted model reads a turn. */
function openTurnOf(
  messages: readonly ModelMessage[],
): { prompt: string; steps: number } | undefined {
  let turn: { prompt: string; steps: number } | undefined;
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (turn) turn.steps += 1;
    } else if (message.role === 'user') {
      const note = message.compaction;
      if (note?.kind === 'state') continue;
      if (note?.kind === 'summary') turn = note.openTurn ? { ...note.openTurn } : turn;
      else turn = { prompt: message.content, steps: 0 };
    }
  }
  return turn;
}

/** The transcript, each message capped as far as needed (then the oldest left out) to fit `room`. */
function fitTranscript(
  earlier: string | undefined,
  messages: readonly ModelMessage[],
  room: number,
  instructions: string | undefined,
): string {
  const spare = room - (instructions?.length ?? 0) - 400;
  for (const cap of CAPS) {
    const parts = messages.map((message) => messageText(message, cap));
    if (earlier !== undefined)
      parts.unshift(`## summary of what came before\n${capped(earlier, cap)}`);
    const text = parts.join('\n\n');
    if (text.length <= spare) return text;
  }
  const parts = messages.map((message) => messageText(message, CAPS[CAPS.length - 1]));
  let total = 0;
  let keep = parts.length;
  while (keep > 0 && total + (parts[keep - 1]?.length ?? 0) + 2 <= spare - 200) {
    total += (parts[keep - 1]?.length ?? 0) + 2;
    keep -= 1;
  }
  return [`[… ${keep} earlier messages left out to fit this request …]`, ...parts.slice(keep)].join(
    '\n\n',
  );
}

function capped(text: string, cap: number): string {
  return text.length <= cap
    ? text
    : `${text.slice(0, cap)}\n[… ${text.length - cap} characters cut …]`;
}

/** What the user (or, for a child, its parent) wrote up to `through`, in order. */
function userWords(events: readonly SessionEvent[], through: number): string[] {
  const words: string[] = [];
  for (const event of events) {
    if (event.seq > through) break;
    if (event.type !== 'user/message') continue;
    const data = (event as SessionEvent<'user/message'>).data;
    if (data.source === undefined) words.push(data.text);
  }
  return words;
}

async function ask(
  model: ModelClient,
  system: string,
  text: string,
  maxOutputTokens: number,
  signal: AbortSignal | undefined,
): Promise<{ ok: true; text: string; usage: Usage } | { ok: false; reason: string; usage: Usage }> {
  let written = '';
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const part of model.stream({
      system,
      messages: [{ role: 'user', content: text }],
      tools: [],
      maxOutputTokens,
      signal: controller.signal,
    })) {
      if (part.type === 'text') written += part.text;
      else if (part.type === 'finish') return { ok: true, text: written, usage: part.usage };
      else if (part.type === 'error') {
        return {
          ok: false,
          reason: `the summary request failed: ${part.error.message}`,
          usage: part.usage ?? emptyUsage(),
        };
      }
    }
    return {
      ok: false,
      reason: `${model.id} ended the summary without finishing`,
      usage: emptyUsage(),
    };
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}
