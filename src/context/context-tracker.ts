/**
 * One agent's context accounting and pruning, run before each of its model requests through
 * core's `model/view` hook: it sizes the request (the previous request's reported prompt tokens
 * plus an estimate of what changed since), logs `context/usage` and the one `context/warning`,
 * and prunes old tool results when the request would pass `compactAt` or the model refused it as
 * too large. The view it returns is the derived messages with every logged `context/compact`
 * applied, so a reloaded session sees the same view. It appends events; it never edits one.
 */
import { UserError } from '../base/errors.js';
import type { Context } from '../core/context.js';
import type { ModelViewInput } from '../core/model-view.js';
import type { SessionEvent } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import type { ModelMessage } from '../llm/contract.js';
import { contextWindowOf } from './context-window.js';
import type { ContextSettings } from './contract.js';
import { applyPruned, choosePrunes } from './pruning.js';
import { lastReportedSize } from './reported-size.js';
import { charactersOfRequest, tokensOfCharacters } from './token-estimate.js';

/** The share of the window a compaction prunes the request down to. */
const PRUNE_TO_SHARE = 0.5;

export class ContextTracker {
  private readonly log: SessionLog;
  private readonly context: Context;
  readonly settings: Readonly<ContextSettings>;
  private scanned = 0;
  private readonly pruned = new Set<string>();
  private readonly stubs = new Map<string, ModelMessage>();
  private warned = false;
  /** The last request sized here, until its reported usage arrives. */
  private sent: { estimate: number; seq: number } | undefined;
  /** The latest reported prompt size and the estimate of the request it was reported for. */
  private base: { reported: number; estimate: number } | undefined;
  /** Assistant messages scanned, and the latest one with a reported prompt size (its ordinal). */
  private assistantMessages = 0;
  private lastReport: { reported: number; ordinal: number } | undefined;

  constructor(options: { log: SessionLog; context: Context; settings: Readonly<ContextSettings> }) {
    this.log = options.log;
    this.context = options.context;
    this.settings = options.settings;
  }

  /** The `model/view` handler: the view to send, after accounting and any pruning. */
  prepare(input: ModelViewInput, derived: readonly ModelMessage[]): ModelMessage[] {
    this.scan();
    const { log } = this;
    const window = contextWindowOf(this.context, input.model);
    const estimateOf = (messages: readonly ModelMessage[]) =>
      tokensOfCharacters(charactersOfRequest(input.system, input.tools, messages));
    let view = applyPruned(derived, this.pruned, this.stubs);
    // A session reopened here: its last reported size stands for the request it was reported
    // for, estimated as sent (a compaction logged since is room saved).
    if (!this.base && this.lastReport) {
      this.base = lastReportedSize(this.log.events, derived, estimateOf);
    }
    let estimate = estimateOf(view);
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
      // Pruned down to half the window (or to compactAt when lower), not just under compactAt:
      // the next compaction is then many steps away, and the provider's cached prefix holds
      // until it comes (pruning one result a step would rewrite the prefix every step).
      const target = Math.floor(Math.min(PRUNE_TO_SHARE, this.settings.compactAt) * window);
      const choice = choosePrunes(view, this.pruned, this.settings.keepSteps, before - target);
      const chosen = new Set([...this.pruned, ...choice.callIds]);
      const pruned = applyPruned(derived, chosen, this.stubs);
      const prunedEstimate = estimateOf(pruned);
      const after = before - (estimate - prunedEstimate);
      if (choice.callIds.length === 0 || after >= before) {
        log.append('context/compact-skipped', { before, wouldBe: after });
      } else {
        for (const callId of choice.callIds) this.pruned.add(callId);
        log.append('context/compact', {
          through: log.lastSeq,
          summary: '',
          pruned: choice.callIds,
          before,
          after,
          trigger: overflow ? 'overflow' : 'auto',
        });
        view = pruned;
        estimate = prunedEstimate;
        tokens = after;
      }
    }
    log.append('context/usage', { tokens, window, share: tokens / window });
    this.sent = { estimate, seq: log.lastSeq };
    return view;
  }

  /** The exact text of a logged tool result, by its call id; throws for an unknown id. */
  original(callId: string): string {
    const events = this.log.events;
    for (let index = events.length - 1; index >= 0; index--) {
      const event = events[index];
      if (event?.type !== 'tool/result') continue;
      const data = (event as SessionEvent<'tool/result'>).data;
      if (data.callId === callId) return data.content;
    }
    throw new UserError(
      'INVALID_ARGUMENT',
      `no tool result with id ${JSON.stringify(callId)} in this session: recall takes the id a pruned result's stub cites`,
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
          for (const callId of (event as SessionEvent<'context/compact'>).data.pruned) {
            this.pruned.add(callId);
          }
          break;
        case 'context/warning':
          this.warned = true;
          break;
        case 'assistant/message': {
          const { usage } = (event as SessionEvent<'assistant/message'>).data;
          this.assistantMessages += 1;
          if (usage.input > 0) {
            this.lastReport = { reported: usage.input, ordinal: this.assistantMessages };
          }
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
