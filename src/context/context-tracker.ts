/**
 * One agent's context accounting and compaction, run before each of its model requests through
 * core's `model/view` hook: it sizes the request (the previous request's reported prompt tokens
 * plus an estimate of what changed since), logs `context/usage` and the one `context/warning`,
 * and compacts when the request would pass `compactAt` or the model refused it as too large:
 * first by pruning old tool results, and only when that is not enough by a summary (a model
 * request). The view it returns is the derived messages with every logged `context/compact`
 * applied, so a reloaded session sees the same view. It appends events; it never edits one.
 */
import { UserError } from '../base/errors.js';
import { agentCompacting } from '../core/agent-hooks.js';
import type { Context } from '../core/context.js';
import type { ModelViewInput } from '../core/model-view.js';
import type { SessionEvent } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import { standingStateText } from '../core/standing-state.js';
import type { ModelMessage } from '../llm/contract.js';
import {
  applyCompactions,
  type CompactedMessages,
  type CompactionFold,
  emptyCompactionFold,
  foldCompaction,
} from './compacted-view.js';
import { pruningEvent, summaryEvent } from './compaction-events.js';
import { contextWindowOf } from './context-window.js';
import type { CompactTrigger, ContextCompactEvent, ContextSettings } from './contract.js';
import { lastReportedSize } from './reported-size.js';
import { messagesText, parseSpanId, spanMessages } from './span-text.js';
import { charactersOfRequest, tokensOfCharacters } from './token-estimate.js';

/** The share of the window a compaction prunes the request down to. */
const PRUNE_TO_SHARE = 0.5;

/** One request's compaction: its view, its size before, and how to size a candidate view. */
interface CompactStep {
  view: CompactedMessages;
  viewOf: (fold: CompactionFold) => CompactedMessages;
  sizeOf: (candidate: CompactedMessages) => number;
  before: number;
  limit: number;
  window: number;
  trigger: CompactTrigger;
  input: ModelViewInput;
}

interface Compacted {
  kind: 'compacted';
  view: CompactedMessages;
  after: number;
}

export class ContextTracker {
  private readonly log: SessionLog;
  private readonly context: Context;
  readonly settings: Readonly<ContextSettings>;
  private readonly agentId: string;
  private scanned = 0;
  private fold: CompactionFold = emptyCompactionFold();
  private readonly stubs = new Map<string, ModelMessage>();
  private warned = false;
  /** The last request sized here, until its reported usage arrives. */
  private sent: { estimate: number; seq: number } | undefined;
  /** The latest reported prompt size and the estimate of the request it was reported for. */
  private base: { reported: number; estimate: number } | undefined;
  private reportedBefore = false;

  constructor(options: { log: SessionLog; context: Context; settings: Readonly<ContextSettings> }) {
    this.log = options.log;
    this.context = options.context;
    this.settings = options.settings;
    this.agentId = options.log.header.sessionId;
  }

  /** The `model/view` handler: the view to send, after accounting and any compaction. */
  async prepare(input: ModelViewInput, derived: readonly ModelMessage[]): Promise<ModelMessage[]> {
    this.scan();
    const { log } = this;
    const window = contextWindowOf(this.context, input.model);
    const estimateOf = (messages: readonly ModelMessage[]) =>
      tokensOfCharacters(charactersOfRequest(input.system, input.tools, messages));
    const viewOf = (fold: CompactionFold) =>
      applyCompactions(derived, input.origins, fold, this.stubs);
    let view = viewOf(this.fold);
    // A session reopened here: its last reported size stands for the request it was reported
    // for, estimated as sent (a compaction logged since is room saved).
    if (!this.base && this.reportedBefore) this.base = lastReportedSize(log.events, estimateOf);
    let estimate = estimateOf(view.messages);
    let tokens = this.sized(estimate);
    if (!this.warned && tokens / window >= this.settings.warnAt) {
      this.warned = true;
      log.append('context/warning', { share: tokens / window });
    }
    const limit = Math.floor(this.settings.compactAt * window);
    const overflow = input.reason === 'overflow';
    if (tokens > limit || overflow) {
      // The model refused the request: it is at least the window, whatever the estimate says.
      const before = overflow ? Math.max(tokens, window) : tokens;
      const sizeOf = (candidate: CompactedMessages) =>
        before - (estimate - estimateOf(candidate.messages));
      const trigger = overflow ? 'overflow' : 'auto';
      await this.context.serial(
        agentCompacting,
        { agentId: this.agentId, trigger, signal: input.signal },
        undefined,
      );
      const compacted = await this.compact({
        view,
        viewOf,
        sizeOf,
        before,
        limit,
        window,
        trigger,
        input,
      });
      if (compacted) {
        view = compacted.view;
        estimate = estimateOf(view.messages);
        tokens = compacted.after;
      }
    }
    log.append('context/usage', { tokens, window, share: tokens / window });
    this.sent = { estimate, seq: log.lastSeq };
    return view.messages;
  }

  /**
   * Prunes, and summarizes when pruning would not bring the request under `limit`. Logs the
   * compaction (or that it was skipped, and why) and returns the new view and its size.
   */
  private async compact(step: CompactStep): Promise<Compacted | undefined> {
    const { log } = this;
    const { view, viewOf, sizeOf, before, limit, window, trigger, input } = step;
    const base = {
      view,
      fold: this.fold,
      keepSteps: this.settings.keepSteps,
      before,
      trigger,
      sizeOf: (fold: CompactionFold) => sizeOf(viewOf(fold)),
    };
    // Pruned down to half the window (or to compactAt when lower), not just under compactAt:
    // the next compaction is then many steps away, and the provider's cached prefix holds
    // until it comes (pruning one result a step would rewrite the prefix every step).
    const target = Math.floor(Math.min(PRUNE_TO_SHARE, this.settings.compactAt) * window);
    const state = await standingStateText(this.context, this.agentId);
    const pruning = pruningEvent({
      ...base,
      through: log.lastSeq,
      excess: before - target,
      ...(state !== undefined ? { state } : {}),
    });
    const pruningHelps = pruning.pruned.length > 0 && pruning.after < before;
    if (pruningHelps && pruning.after <= limit) return this.logged(pruning, viewOf);
    const summary = await summaryEvent({
      ...base,
      log,
      pruned: pruning.pruned,
      turnId: input.turnId,
      request: {
        model: input.model,
        window,
        signal: input.signal,
        ...(state !== undefined ? { state } : {}),
      },
    });
    if (summary.kind === 'summary') return this.logged(summary.event, viewOf);
    if (pruningHelps) return this.logged(pruning, viewOf);
    log.append('context/compact-skipped', {
      before,
      wouldBe: summary.kind === 'failed' ? summary.wouldBe : pruning.after,
      ...(summary.kind === 'failed' ? { reason: summary.reason } : {}),
    });
    return undefined;
  }

  private logged(
    event: ContextCompactEvent,
    viewOf: (fold: CompactionFold) => CompactedMessages,
  ): Compacted {
    this.log.append('context/compact', event);
    this.scan();
    return { kind: 'compacted', view: viewOf(this.fold), after: event.after };
  }

  /**
   * The exact original text of a logged tool result (by its call id) or of a summarized span
   * (by the `span:FROM-THROUGH` id its summary cites); throws for an unknown id.
   */
  original(id: string): string {
    const events = this.log.events;
    const span = parseSpanId(id);
    if (span) {
      const summarized = events.some(
        (event) =>
          event.type === 'context/compact' &&
          (event as SessionEvent<'context/compact'>).data.summarized?.id === id,
      );
      if (summarized) return messagesText(spanMessages(events, span.from, span.through));
    }
    for (let index = events.length - 1; index >= 0; index--) {
      const event = events[index];
      if (event?.type !== 'tool/result') continue;
      const data = (event as SessionEvent<'tool/result'>).data;
      if (data.callId === id) return data.content;
    }
    throw new UserError(
      'INVALID_ARGUMENT',
      `no tool result or summarized span with id ${JSON.stringify(id)} in this session: recall takes the id a pruned result's stub or a summary cites`,
    );
  }

  /** The request's size: the last reported size plus the estimated change since, else the estimate. */
  private sized(estimate: number): number {
    if (!this.base) return estimate;
    return Math.max(0, this.base.reported + estimate - this.base.estimate);
  }

  private scan(): void {
    const events = this.log.events;
    for (; this.scanned < events.length; this.scanned++) {
      const event = events[this.scanned];
      if (!event) continue;
      switch (event.type) {
        case 'context/compact':
          foldCompaction(this.fold, (event as SessionEvent<'context/compact'>).data);
          break;
        case 'context/warning':
          this.warned = true;
          break;
        case 'assistant/message': {
          const { usage } = (event as SessionEvent<'assistant/message'>).data;
          if (usage.input > 0) this.reportedBefore = true;
          if (this.sent && event.seq > this.sent.seq && usage.input > 0) {
            this.base = { reported: usage.input, estimate: this.sent.estimate };
            this.sent = undefined;
          }
          break;
        }
        default:
          break;
      }
    }
  }
}
