/**
 * What `/context` shows: the estimated size of the next request, part by part (system prompt,
 * tool schemas, messages, tool results, pruned stubs, summaries), its total against the window
 * with the warning and compaction thresholds, and where the window came from. One pure function
 * over the session's events and the request's prompt, so the terminal and ACP say the same text.
 * It never reads anything but its input and never changes an event.
 */
import type { SessionEvent } from '../core/session-events.js';
import type { ModelToolSpec } from '../llm/contract.js';
import { compactedView, prunedCallIds } from './compacted-view.js';
import { groupedNumber, tokens as tokensText } from './context-lines.js';
import type { ContextSettings, ModelInfo } from './contract.js';
import { unknownModelNote } from './model-catalog.js';
import { charactersOfMessage, tokensOfCharacters } from './token-estimate.js';

export interface ContextBreakdownInput {
  /** The session's log. */
  events: readonly SessionEvent[];
  /** The next request's system prompt and tool schemas, as they would be sent. */
  system: string;
  tools: readonly ModelToolSpec[];
  /** What the catalog knows of the model (its `spec` and `source`). */
  model: ModelInfo;
  /** The window the tracker measures against (the catalog's, else the client's, else the default). */
  window: number;
  settings: Readonly<ContextSettings>;
}

export interface ContextBreakdown {
  spec: string;
  source: ModelInfo['source'];
  window: number;
  /** Estimated tokens of each part of the next request. */
  system: number;
  tools: number;
  toolCount: number;
  /** User and assistant messages. */
  messages: number;
  /** Tool results the model sees in full. */
  toolResults: number;
  toolResultCount: number;
  /** Tool results replaced by a one-line stub. */
  stubs: number;
  stubCount: number;
  /** Summaries standing for summarized spans. */
  summaries: number;
  summaryCount: number;
  /** The sum of the parts. */
  estimate: number;
  /** The last reported prompt size plus the estimated change since, else the estimate. */
  total: number;
  /** The provider's latest reported prompt size, when one was reported. */
  reported?: number;
  share: number;
  compactAt: number;
  warnAt: number;
}

export function contextBreakdown(input: ContextBreakdownInput): ContextBreakdown {
  const { events, model, window, settings } = input;
  const view = compactedView(events);
  const pruned = prunedCallIds(events);
  const summaryTexts = events
    .filter((event) => event.type === 'context/compact')
    .map((event) => (event as SessionEvent<'context/compact'>).data.summary)
    .filter((summary) => summary.length > 0);
  const system = tokensOfCharacters(input.system.length);
  const tools = input.tools.length > 0 ? tokensOfCharacters(JSON.stringify(input.tools).length) : 0;
  const parts = { messages: 0, toolResults: 0, stubs: 0, summaries: 0 };
  const counts = { toolResults: 0, stubs: 0, summaries: 0 };
  // Characters per part, rounded to tokens once, as the tracker estimates a whole request.
  const characters = { messages: 0, toolResults: 0, stubs: 0, summaries: 0 };
  for (const message of view) {
    const size = charactersOfMessage(message);
    if (message.role === 'tool') {
      if (pruned.has(message.callId)) {
        characters.stubs += size;
        counts.stubs += 1;
      } else {
        characters.toolResults += size;
        counts.toolResults += 1;
      }
    } else if (
      message.role === 'user' &&
      summaryTexts.some((text) => message.content.includes(text))
    ) {
      characters.summaries += size;
      counts.summaries += 1;
    } else characters.messages += size;
  }
  for (const part of Object.keys(parts) as (keyof typeof parts)[]) {
    parts[part] = tokensOfCharacters(characters[part]);
  }
  const estimate =
    system + tools + parts.messages + parts.toolResults + parts.stubs + parts.summaries;
  const report = lastReport(events, view, input, estimate);
  const total = report ? report.total : estimate;
  return {
    spec: model.spec,
    source: model.source,
    window,
    system,
    tools,
    toolCount: input.tools.length,
    ...parts,
    toolResultCount: counts.toolResults,
    stubCount: counts.stubs,
    summaryCount: counts.summaries,
    estimate,
    total,
    ...(report ? { reported: report.reported } : {}),
    share: window > 0 ? total / window : 0,
    compactAt: settings.compactAt,
    warnAt: settings.warnAt,
  };
}

/**
 * The latest reported prompt size and the size it makes the next request: the report stands for
 * the view up to the assistant message it came with, and the rest is estimated (as a reopened
 * session's tracker sizes its first request).
 */
function lastReport(
  events: readonly SessionEvent[],
  view: ReturnType<typeof compactedView>,
  input: ContextBreakdownInput,
  estimate: number,
): { reported: number; total: number } | undefined {
  let ordinal = 0;
  let report: { reported: number; ordinal: number } | undefined;
  for (const event of events) {
    if (event.type !== 'assistant/message') continue;
    ordinal += 1;
    const { usage } = (event as SessionEvent<'assistant/message'>).data;
    if (usage.input > 0) report = { reported: usage.input, ordinal };
  }
  if (!report) return undefined;
  let seen = 0;
  const index = view.findIndex(
    (message) => message.role === 'assistant' && ++seen === report.ordinal,
  );
  if (index < 0) return undefined;
  let before =
    input.system.length + (input.tools.length > 0 ? JSON.stringify(input.tools).length : 0);
  for (const message of view.slice(0, index)) before += charactersOfMessage(message);
  const earlier = tokensOfCharacters(before);
  return { reported: report.reported, total: Math.max(0, report.reported + estimate - earlier) };
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

const SOURCES: Record<ModelInfo['source'], string> = {
  catalog: 'from the model catalog',
  config: 'from config models:',
  client: 'as the model client states it',
  default: 'the default for a model the catalog does not know',
};

/** The breakdown as the lines both front ends show. */
export function contextBreakdownText(breakdown: ContextBreakdown): string {
  const row = (label: string, count: number, detail = '') =>
    `  ${label.padEnd(14)}${tokensText(count).padStart(6)}${detail ? `  ${detail}` : ''}`;
  const lines = [
    `context of the next request (estimated at about four characters a token):`,
    row('system prompt', breakdown.system),
    row('tool schemas', breakdown.tools, plural(breakdown.toolCount, 'tool')),
    row('messages', breakdown.messages),
    row('tool results', breakdown.toolResults, plural(breakdown.toolResultCount, 'result')),
    row('pruned stubs', breakdown.stubs, plural(breakdown.stubCount, 'stub')),
    row('summaries', breakdown.summaries, plural(breakdown.summaryCount, 'summary', 'summaries')),
    row(
      'total',
      breakdown.total,
      `${percent(breakdown.share)} of ${tokensText(breakdown.window)}${
        breakdown.reported !== undefined
          ? ` (last reported ${tokensText(breakdown.reported)} plus the estimated change since)`
          : ''
      }`,
    ),
    `warns at ${percent(breakdown.warnAt)}, compacts at ${percent(breakdown.compactAt)} (${groupedNumber(Math.floor(breakdown.compactAt * breakdown.window))} tokens)`,
    `model ${breakdown.spec}: window of ${tokensText(breakdown.window)} ${SOURCES[breakdown.source]}`,
    ...(breakdown.source === 'default' ? [unknownModelNote(breakdown.spec)] : []),
  ];
  return lines.join('\n');
}
