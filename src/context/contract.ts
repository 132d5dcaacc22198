/**
 * The context seam (SPEC §9): what Loom knows of a model (its window, output limit, prices and
 * capabilities, from the catalog and config), how full the next request is, and the compaction
 * events that change what the model sees without changing what the log keeps. A lookup never
 * throws and never guesses silently: an unknown model gets a stated conservative window.
 */
import { serviceKey } from '../core/context.js';

/** US dollars per million tokens. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface ModelInfo {
  /** The model spec it describes (`openai:gpt-4o-mini`, `scripted:…`). */
  spec: string;
  /** The context window in tokens. */
  context: number;
  /** The most output tokens one request may produce. */
  output: number;
  prices?: ModelPrices;
  images: boolean;
  tools: boolean;
  reasoning: boolean;
  /** Where the figures came from: `default` is the conservative window for an unknown model. */
  source: 'catalog' | 'config' | 'client' | 'default';
}

/** The catalog with config's `models:` over it. */
export interface ModelCatalog {
  /** Never throws; an unknown model is `source: 'default'` with the conservative window. */
  lookup(spec: string): ModelInfo;
  /** Every model known, for `loom models`; `filter` matches specs (case-insensitive substring). */
  list(filter?: string): ModelInfo[];
}

export const modelCatalogKey = serviceKey<ModelCatalog>('context/catalog');

/** Config `context:` with its defaults. */
export interface ContextSettings {
  /** Share of the window at which a request is compacted first; default 0.8. */
  compactAt: number;
  /** Share of the window at which `context/warning` is logged once; default 0.7. */
  warnAt: number;
  /** The most recent steps whose tool results are never pruned; default 3. */
  keepSteps: number;
}

export const DEFAULT_CONTEXT_SETTINGS: Readonly<ContextSettings> = Object.freeze({
  compactAt: 0.8,
  warnAt: 0.7,
  keepSteps: 3,
});

export type CompactTrigger = 'auto' | 'manual' | 'overflow';

export interface ContextUsageEvent {
  /** The size of the request about to be sent, in tokens. */
  tokens: number;
  window: number;
  /** tokens / window. */
  share: number;
}

export interface ContextWarningEvent {
  share: number;
}

/** The history a summary stands for: the events `from`..`through` of the log. */
export interface SummarizedSpan {
  /** What `recall` takes for the span's original text: `span:FROM-THROUGH`. */
  id: string;
  from: number;
  /** User turns, model steps and tool results the span held. */
  turns: number;
  steps: number;
  toolResults: number;
  /** The latest user message the span stands for and the model steps after it (CompactionNote). */
  openTurn?: { prompt: string; steps: number };
}

export interface ContextCompactEvent {
  /**
   * The `seq` of the last event the compaction covers. With a summary, the model's view replaces
   * every message up to it with the summary; without one, `state` (if any) follows it.
   */
  through: number;
  /** The summary that stands for the summarized history, or empty when only pruning ran. */
  summary: string;
  /** The `callId`s of the tool results replaced by one-line stubs. */
  pruned: string[];
  /** Tokens of the request before and after. */
  before: number;
  after: number;
  trigger: CompactTrigger;
  /** The span this compaction summarized (absent when only pruning ran). */
  summarized?: SummarizedSpan;
  /**
   * Loom's own restatement of where the agent stands (goal, open todos, plan mode, schedules) at
   * the compaction, folded from the log by their layers: a pruning compaction's view sends it as
   * one message after `through`; a summary carries it at its end.
   */
  state?: string;
}

/** A summarization request has started (a `context/compact` or `-skipped` follows unless the process died). */
export interface ContextSummarizingEvent {
  /** The `seq` the summary will cover up to. */
  through: number;
  before: number;
  trigger: CompactTrigger;
}

export interface ContextCompactSkippedEvent {
  before: number;
  wouldBe: number;
  /** Why, when not simply "it would not be smaller" (a failed summarization names its error). */
  reason?: string;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'context/usage': ContextUsageEvent;
    'context/warning': ContextWarningEvent;
    'context/compact': ContextCompactEvent;
    'context/compact-skipped': ContextCompactSkippedEvent;
    'context/summarizing': ContextSummarizingEvent;
  }
}
