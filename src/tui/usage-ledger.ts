/**
 * Tokens and cost per agent of the open session's tree (the session itself, its subagents and
 * workflow children, at any depth), from the model requests of their logs (`requestSpend`: steps and side requests such as summaries), priced
 * by the `prices` config per model spec. A fork's copied events are not counted again. A
 * workflow agent whose log this process never sees (an ACP child in its own process) counts
 * with the tokens its `workflow/agent-end` reported, so `/cost` and `/workflows` agree. It reads
 * logs only; it never writes one, and a model without a price leaves the cost unknown, not 0.
 */
import type { Disposer } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { requestSpend } from '../core/request-spend.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { SessionEvent, SessionHeader } from '../core/session-events.js';
import { loadSessionFile } from '../core/session-load.js';
import type { SessionStore } from '../core/session-store.js';
import {
  addTokens,
  costOf,
  hasPrices,
  type PriceSource,
  priceOf,
  type TokenCount,
} from '../llm/prices.js';
import { persistedChildren } from '../subagent/persisted-children.js';

export interface AgentUsage {
  sessionId: string;
  /** `main` for the session itself, else the child's description (its id when it has none). */
  label: string;
  delegationDepth: number;
  tokens: TokenCount;
  /** Tokens per model spec the agent used. */
  models: ReadonlyMap<string, TokenCount>;
  /** Absent when a model it used has no price. */
  costUsd?: number;
}

export interface UsageTotal {
  tokens: TokenCount;
  /** Absent when some tokens were spent on a model without a price. */
  costUsd?: number;
  /** Models that were used but have no price. */
  unpriced: string[];
}

interface Entry {
  sessionId: string;
  label: string;
  delegationDepth: number;
  models: Map<string, TokenCount>;
  /** Requests counted from the agent's own log. */
  requests: number;
}

/** A workflow agent's end as its run reported it. */
export interface ReportedAgent {
  /** Its session when known, else any id unique to the agent (run id and seq). */
  sessionId: string;
  label: string;
  /** The model spec it ran on. */
  model: string;
  tokens: TokenCount;
}

export class UsageLedger {
  private readonly entries = new Map<string, Entry>();
  private rootId = '';

  constructor(private readonly prices: PriceSource = {}) {}

  /** Whether any price is configured (without one, costs are not shown at all). */
  get priced(): boolean {
    return hasPrices(this.prices);
  }

  /**
   * Starts over with `root` (a new or reopened session): its history, and the history of the
   * descendants earlier processes left in `sessionDirectory`.
   */
  reset(root: AgentHandle, store?: SessionStore): void {
    this.entries.clear();
    this.rootId = root.log.header.sessionId;
    this.fold(root.log.header, root.log.events);
    if (store === undefined) return;
    const waiting = [this.rootId];
    for (let parent = waiting.shift(); parent !== undefined; parent = waiting.shift()) {
      for (const child of persistedChildren(store.directory, parent)) {
        if (this.entries.has(child.id)) continue;
        try {
          const { header, events } = loadSessionFile(store.pathOf(child.id));
          this.fold(header, events);
          waiting.push(child.id);
        } catch {
          // A child file that cannot be read has no usage to show.
        }
      }
    }
  }

  /**
   * Follows every agent `runtime` makes from now on whose parent is in the tree; `changed` runs
   * after each counted request. Returns the undo.
   */
  follow(runtime: AgentRuntime, changed: () => void): Disposer {
    return runtime.onAgent((handle) => {
      const { header } = handle.log;
      if (header.parentSession === null || !this.entries.has(header.parentSession))
        return undefined;
      this.fold(header, handle.log.events);
      return handle.log.onAppend((event) => {
        if (this.apply(header.sessionId, event)) changed();
      });
    });
  }

  /**
   * Counts a workflow agent's reported tokens unless its own log was counted (an agent of this
   * process); returns whether the counts changed.
   */
  noteReported(agent: ReportedAgent): boolean {
    const known = this.entries.get(agent.sessionId);
    if (known && known.requests > 0) return false;
    if (agent.tokens.input === 0 && agent.tokens.output === 0 && known) return false;
    const models = new Map<string, TokenCount>();
    add(models, agent.model, agent.tokens);
    this.entries.set(agent.sessionId, {
      sessionId: agent.sessionId,
      label: agent.label,
      delegationDepth: known?.delegationDepth ?? 1,
      models,
      requests: 0,
    });
    return true;
  }

  /** Counts one event of the root session (the store already listens to its log). */
  applyRoot(event: SessionEvent): void {
    this.apply(this.rootId, event);
  }

  agents(): AgentUsage[] {
    return [...this.entries.values()].map((entry) => {
      const tokens = sum(entry.models.values());
      const usage: AgentUsage = {
        sessionId: entry.sessionId,
        label: entry.label,
        delegationDepth: entry.delegationDepth,
        tokens,
        models: entry.models,
      };
      const cost = this.costOfModels(entry.models);
      if (cost !== undefined) usage.costUsd = cost;
      return usage;
    });
  }

  total(): UsageTotal {
    const models = new Map<string, TokenCount>();
    for (const entry of this.entries.values()) {
      for (const [model, tokens] of entry.models) add(models, model, tokens);
    }
    const total: UsageTotal = {
      tokens: sum(models.values()),
      unpriced: [...models.keys()].filter((model) => priceOf(this.prices, model) === undefined),
    };
    const cost = this.costOfModels(models);
    if (cost !== undefined) total.costUsd = cost;
    return total;
  }

  private costOfModels(models: ReadonlyMap<string, TokenCount>): number | undefined {
    let cost = 0;
    for (const [model, tokens] of models) {
      const part = costOf(this.prices, model, tokens);
      if (part === undefined) return undefined;
      cost += part;
    }
    return cost;
  }

  private fold(header: SessionHeader, events: readonly SessionEvent[]): void {
    this.entries.set(header.sessionId, {
      sessionId: header.sessionId,
      label: header.delegationDepth === 0 ? 'main' : header.sessionId,
      delegationDepth: header.delegationDepth,
      models: new Map(),
      requests: 0,
    });
    for (const event of events.slice(header.seedLength)) this.apply(header.sessionId, event);
  }

  /** Whether the event changed the counts. */
  private apply(sessionId: string, event: SessionEvent): boolean {
    const entry = this.entries.get(sessionId);
    if (!entry) return false;
    if (event.type === 'subagent/descriptor') {
      const { description } = (event as SessionEvent<'subagent/descriptor'>).data;
      if (description.trim() !== '') entry.label = description;
      return false;
    }
    const spend = requestSpend(event);
    if (!spend) return false;
    const { model, usage } = spend;
    // A reported count gives way to the log's own, which is then counted from its start.
    if (entry.requests === 0) entry.models.clear();
    entry.requests += 1;
    add(entry.models, model, usage);
    return true;
  }
}

function add(models: Map<string, TokenCount>, model: string, tokens: TokenCount): void {
  const current = models.get(model) ?? { input: 0, output: 0 };
  const next: TokenCount = {
    input: current.input + tokens.input,
    output: current.output + tokens.output,
  };
  const cachedInput = (current.cachedInput ?? 0) + (tokens.cachedInput ?? 0);
  const cacheWrite = (current.cacheWrite ?? 0) + (tokens.cacheWrite ?? 0);
  if (cachedInput > 0) next.cachedInput = cachedInput;
  if (cacheWrite > 0) next.cacheWrite = cacheWrite;
  models.set(model, next);
}

/** Cache reads and writes add up too, so `/cost` can show them per agent and in total. */
function sum(counts: Iterable<TokenCount>): TokenCount {
  let total: TokenCount = { input: 0, output: 0 };
  for (const count of counts) total = addTokens(total, count);
  return total;
}
