/**
 * The children of one workflow run, kept on the host: `agent()` calls start here through the
 * subagent registry in FIFO slots under the run's caps, each started child gets exactly one
 * `workflow/agent-end`, and its outcome goes back to the script as a reply. Cancelling drives
 * both channels from here (the run's shared signal and each child's `cancel`), because a wedged
 * worker cannot relay a cancel. It never talks to the worker except through `reply`.
 */
import { setMaxListeners } from 'node:events';
import { errorMessage } from '../base/errors.js';
import type { Context } from '../core/context.js';
import { agentRuntimeKey } from '../core/runtime.js';
import type { ReasoningEffort, Usage } from '../llm/contract.js';
import { costOf, hasPrices, type PriceSource, priceOf, type TokenCount } from '../llm/prices.js';
import type { AgentType } from '../project/agent-types-contract.js';
import type {
  EffortReport,
  SubagentResult,
  SubagentRun,
  SubagentStartRequest,
} from '../subagent/contract.js';
import type { SubagentRegistry } from '../subagent/registry.js';
import { AgentClocks, type AgentLimitReason } from './agent-clocks.js';
import { agentSchemaRefusal } from './agent-schema.js';
import { findAgentType, typedChild } from './agent-type-choice.js';
import { type AgentWorktree, agentSlug, RunWorktrees, type WorktreeEnd } from './agent-worktree.js';
import {
  addUsage,
  cacheOf,
  cancelledReply,
  defaultLabel,
  judge,
  startFailure,
  summaryOf,
} from './child-outcome.js';
import { FAN_OUT_AGENTS, tuneCompilerForFanOut } from './compiler-tuning.js';
import {
  type AgentOutcome,
  type WorkflowAgentEndEvent,
  type WorkflowAgentSummary,
  type WorkflowFailure,
  type WorkflowLimits,
  type WorkflowMeta,
  type WorkflowStartRequest,
  workflowAgentEnd,
  workflowAgentStart,
} from './contract.js';
import type { AgentReply, AgentStartOptions } from './protocol.js';
import type { RunBudget } from './run-budget.js';
import { type JournalRecord, journalKey, type RunJournal } from './run-journal.js';
import { modelRefusal, type ScriptModels } from './script-reach.js';
import { FifoSlots } from './slots.js';
import { WORKFLOW_TOOL } from './tool.js';

/** What a run is: shared by the run and its children's bookkeeping. */
export interface RunSetup {
  runId: string;
  context: Context;
  registry: SubagentRegistry;
  provider: string;
  meta: WorkflowMeta;
  limits: WorkflowLimits;
  request: WorkflowStartRequest;
  childInstructions: (schema: boolean) => string;
  /** The root run's token budget: every child's tokens are charged here, live. */
  budget: RunBudget;
  /** Prices by model spec, for each agent's cost; default none: costs are unknown. */
  prices?: PriceSource;
  /** The run's journal: completed calls are recorded, and recorded ones answered without a child. */
  journal?: RunJournal;
  /** The models the script may name (agent option, phase model); default: built-in providers only. */
  scriptModels?: ScriptModels;
  /** The workspace, whose git worktrees `isolation: 'worktree'` agents work in; default the process's folder. */
  workspace?: string;
  /**
   * Every tool a child could be given, so an agent type's tool list hides the rest; default the
   * runtime's tool catalog (`agentRuntimeKey` on the run's scope).
   */
  toolNames?: () => readonly string[];
}

export interface RunChildrenSetup extends RunSetup {
  /** Sends one `agent()` call's outcome to the script. Must not throw. */
  reply(call: number, reply: AgentReply): void;
  /** Called after a child's end was emitted. Must not throw. */
  onChildEnded(): void;
  /** The meta of the nested workflow of this name, for its phases' models. Must not throw. */
  nestedMeta?(name: string): WorkflowMeta | undefined;
}

export interface AgentCall {
  call: number;
  prompt: string;
  options: AgentStartOptions;
  /** The phase the agent belongs to: its own option, else the script's current phase. */
  phase: string;
  /** The nested run's name when a `workflow()` call made it. */
  workflow?: string;
  /** The agent type its `agentType` option names, once resolved. */
  type?: AgentType;
}

interface Child {
  seq: number;
  call: number;
  label: string;
  phase: string;
  schema: boolean;
  /** Absent for a call answered from the journal. */
  run?: SubagentRun;
  workflow?: string;
  /** The model spec the child was started with, if the run named one. */
  model?: string;
  /** What the child has been charged so far; absent for an agent that paid nothing. */
  spend?: AgentSpend;
  /** Answered from the journal: no child ran. */
  journaled?: true;
  /** The call's journal key and occurrence, when the run keeps a journal. */
  key?: string;
  n?: number;
  /** Its time limit and stall detector, while it runs (never for a journal answer). */
  clocks?: AgentClocks;
  /** Set when a clock ran out: the child was cancelled for it and fails with this reason. */
  limit?: AgentLimitReason;
  /** Its own git worktree until it is closed (whoever takes it closes it). */
  worktree?: AgentWorktree;
  /** The branch its changes go on (`isolation: 'worktree'`). */
  branch?: string;
  /** The effort it started with (its option's, else its type's). */
  effortAsked?: ReasoningEffort;
  effort?: EffortReport;
  notes?: string[];
}

/** Tokens charged for one agent, and their cost (undefined once any of it has no price). */
interface AgentSpend extends TokenCount {
  costUsd: number | undefined;
}

/** Where a call stands in the journal: its key and occurrence, and the earlier answer if any. */
interface JournalPlace {
  key: string;
  n: number;
  hit: JournalRecord | undefined;
}

export class RunChildren {
  readonly failures: WorkflowFailure[] = [];
  readonly usage: Usage = { input: 0, output: 0 };
  /** Every ended agent, in the order they ended. */
  readonly agents: WorkflowAgentSummary[] = [];
  private readonly setup: RunChildrenSetup;
  private readonly slots: FifoSlots;
  private readonly controller = new AbortController();
  private readonly running = new Map<number, Child>();
  /** Completed children whose journal line is not durable yet: not ended, not cancellable. */
  private readonly journaling = new Map<number, Child>();
  /** Settled children whose worktree is being committed and removed: not ended yet. */
  private readonly finishing = new Map<number, Child>();
  /** Calls whose worktree is being made: no child yet, no events. */
  private readonly preparing = new Set<number>();
  private worktrees: RunWorktrees | undefined;
  /** The clocks of children that have not ended (see `timedAgents`). */
  private readonly clocks = new Set<AgentClocks>();
  private requested = 0;
  private lastSeq = 0;
  private closed = false;
  private readonly prices: PriceSource;
  private readonly priced: boolean;
  private readonly scriptModels: ScriptModels;
  /** The cost of every ended agent; undefined once one of them has an unknown cost. */
  private totalCost: number | undefined;

  constructor(setup: RunChildrenSetup) {
    this.setup = setup;
    this.prices = setup.prices ?? {};
    this.priced = hasPrices(this.prices);
    const runModel = setup.request.model;
    this.scriptModels = setup.scriptModels ?? {
      routes: [],
      ...(runModel !== undefined ? { runModel } : {}),
    };
    this.totalCost = this.priced ? 0 : undefined;
    this.slots = new FifoSlots(setup.limits.maxConcurrentAgents);
    // One listener per running child (the provider's); more would be a leak worth hearing about.
    setMaxListeners(setup.limits.maxConcurrentAgents + 10, this.controller.signal);
  }

  /** Children started so far (host-observed). */
  get started(): number {
    return this.lastSeq;
  }

  /** Children started and not yet ended. */
  get active(): number {
    return this.running.size + this.journaling.size + this.finishing.size + this.preparing.size;
  }

  /** Children whose clocks are not stopped yet: 0 once every child has ended. */
  get timedAgents(): number {
    return this.clocks.size;
  }

  /** The cost of the agents that have ended; undefined when any of it is unknown. */
  get costUsd(): number | undefined {
    return this.totalCost;
  }

  /** Queues an `agent()` call, or refuses it at once (AGENT_CAP, or a closed run). */
  request(agent: AgentCall): void {
    if (this.closed) {
      this.setup.reply(agent.call, cancelledReply());
      return;
    }
    const { maxTotalAgents } = this.setup.limits;
    if (this.requested >= maxTotalAgents) {
      this.setup.reply(agent.call, {
        kind: 'fatal',
        code: 'AGENT_CAP',
        message: `agent() refused: this run has already asked for ${this.requested} agents (${this.lastSeq} started, ${this.slots.queued} waiting for a free slot); the limit is ${maxTotalAgents} (maxTotalAgents)`,
      });
      return;
    }
    // Checked before a child (or its provider) could read the file a spec names.
    const named = this.scriptModel(agent);
    const refusal = named === undefined ? undefined : modelRefusal(named, this.scriptModels);
    if (refusal !== undefined) {
      this.setup.reply(agent.call, { kind: 'fatal', code: 'INVALID_ARGUMENT', message: refusal });
      return;
    }
    const schemaRefusal =
      agent.options.schema === undefined ? undefined : agentSchemaRefusal(agent.options.schema);
    if (schemaRefusal !== undefined) {
      this.setup.reply(agent.call, {
        kind: 'fatal',
        code: 'UNSUPPORTED_SCHEMA',
        message: schemaRefusal,
      });
      return;
    }
    let typed = agent;
    if (agent.options.agentType !== undefined) {
      const found = findAgentType(this.setup.context, agent.options.agentType);
      if ('refusal' in found) {
        this.setup.reply(agent.call, {
          kind: 'fatal',
          code: 'INVALID_ARGUMENT',
          message: found.refusal,
        });
        return;
      }
      typed = { ...agent, type: found.type };
    }
    this.requested += 1;
    const place = this.journalPlace(typed);
    if (place?.hit) {
      this.answerFromJournal(typed, place.hit);
      return;
    }
    this.slots.enqueue(() => this.launch(typed, place));
  }

  /** The model the script names for the call (its option, else its phase's); undefined: none. */
  private scriptModel(agent: AgentCall): string | undefined {
    const { workflow, phase, options } = agent;
    const meta = workflow === undefined ? this.setup.meta : this.setup.nestedMeta?.(workflow);
    return options.model ?? meta?.phases?.find((candidate) => candidate.title === phase)?.model;
  }

  /** Numbers the call among identical ones (in the order calls reach the host) and looks it up. */
  private journalPlace(agent: AgentCall): JournalPlace | undefined {
    const { journal } = this.setup;
    if (!journal) return undefined;
    const key = journalKey(agent);
    const n = journal.occurrence(key);
    return {
      key,
      n,
      hit: journal.lookup(key, n, agent.options.schema === undefined ? 'text' : 'schema'),
    };
  }

  /** Counts `child` as running and emits its `workflow/agent-start`. */
  private begin(child: Child): void {
    this.running.set(child.seq, child);
    this.setup.context.emit(workflowAgentStart, {
      runId: this.setup.runId,
      seq: child.seq,
      label: child.label,
      phase: child.phase,
      time: Date.now(),
      ...(child.model !== undefined ? { model: child.model } : {}),
      ...(child.workflow !== undefined ? { workflow: child.workflow } : {}),
      ...(child.journaled ? { journaled: true as const } : {}),
    });
  }

  /** A call an earlier attempt completed: its recorded value at once, no slot, no child. */
  private answerFromJournal(agent: AgentCall, record: JournalRecord): void {
    const { call, prompt, options, phase } = agent;
    this.lastSeq += 1;
    const label = options.label ?? defaultLabel(prompt);
    const child: Child = {
      seq: this.lastSeq,
      call,
      label,
      phase,
      schema: options.schema !== undefined,
      ...(agent.workflow !== undefined ? { workflow: agent.workflow } : {}),
      journaled: true,
    };
    if (this.setup.journal) this.setup.journal.hits += 1;
    this.begin(child);
    this.end(child, 'completed', '', { input: 0, output: 0 });
    this.setup.reply(call, { kind: 'ok', value: record.value });
  }

  /** No more starts; every running child is asked to stop through both channels. */
  cancelAll(reason: string): void {
    this.closed = true;
    this.slots.clear();
    if (!this.controller.signal.aborted) this.controller.abort(reason);
    for (const child of this.running.values()) {
      // The run's own reason wins: no child's clock fires while the run is stopping.
      this.stopClocks(child.clocks);
      try {
        child.run?.cancel(reason);
      } catch {
        // The shared signal has already asked it to stop.
      }
    }
  }

  /** Ends every child still running as cancelled, now; their later results are ignored. */
  endStranded(reason: string): void {
    this.cancelAll(reason);
    // A process that must exit now cannot wait for git: a running child's worktree is closed here.
    for (const child of this.running.values()) {
      const worktree = child.worktree;
      if (!worktree || !this.worktrees) continue;
      child.worktree = undefined;
      this.noteWorktreeEnd(child, this.worktrees.finishNow(worktree, child.label));
    }
    for (const child of [
      ...this.running.values(),
      ...this.journaling.values(),
      ...this.finishing.values(),
    ]) {
      this.end(child, 'cancelled', reason);
    }
  }

  /** Refuses a call whose slot came up after the run closed or its budget ran out; true if so. */
  private refusedLaunch(agent: AgentCall): boolean {
    if (this.closed) {
      this.slots.release();
      this.setup.reply(agent.call, cancelledReply());
      return true;
    }
    const { budget } = this.setup;
    if (budget.exhausted) {
      // The run is about to end for it (the budget tells the run in a microtask).
      this.slots.release();
      this.setup.reply(agent.call, {
        kind: 'fatal',
        code: 'BUDGET_EXHAUSTED',
        message: budget.reason(),
      });
      return true;
    }
    return false;
  }

  private launch(agent: AgentCall, place: JournalPlace | undefined): void {
    if (this.refusedLaunch(agent)) return;
    if (agent.options.isolation === 'worktree') this.launchIsolated(agent, place);
    else this.startChild(agent, place, undefined);
  }

  /** Makes the call's worktree (holding its slot), then starts the child in it. */
  private launchIsolated(agent: AgentCall, place: JournalPlace | undefined): void {
    const label = agent.options.label ?? defaultLabel(agent.prompt);
    this.worktrees ??= new RunWorktrees({
      workspace: this.setup.workspace ?? process.cwd(),
      runId: this.setup.runId,
    });
    const worktrees = this.worktrees;
    this.preparing.add(agent.call);
    const prepared = () => {
      this.preparing.delete(agent.call);
      this.setup.onChildEnded();
    };
    worktrees.create(agentSlug(label, `agent-${agent.call}`)).then(
      (worktree) => {
        if (this.closed) {
          this.slots.release();
          this.setup.reply(agent.call, cancelledReply());
          void worktrees.discard(worktree).then(prepared);
          return;
        }
        this.preparing.delete(agent.call);
        if (this.refusedLaunch(agent)) {
          void worktrees.discard(worktree);
          return;
        }
        this.startChild(agent, place, worktree);
      },
      (error: unknown) => {
        // Reply first: the failure ends the run, so no queued call starts in the freed slot.
        this.setup.reply(agent.call, startFailure(label, error));
        this.slots.release();
        prepared();
      },
    );
  }

  private startChild(
    agent: AgentCall,
    place: JournalPlace | undefined,
    worktree: AgentWorktree | undefined,
  ): void {
    const { request } = this.setup;
    const { call, prompt, options, phase, workflow, type } = agent;
    const label = options.label ?? defaultLabel(prompt);
    const toolNames = type?.tools === undefined ? [] : this.toolNames();
    if (type && !toolNames) {
      if (worktree) void this.worktrees?.discard(worktree);
      this.setup.reply(call, {
        kind: 'fatal',
        code: 'AGENT_START',
        message: `agent ${JSON.stringify(label)} could not start: its agent type ${type.name} lists the tools it may see, and this workflow service does not know which tools there are to hide`,
      });
      this.slots.release();
      return;
    }
    const typed = type ? typedChild(type, toolNames ?? [], this.setup.context) : undefined;
    // The call's model, else its type's, else its phase's, is explicit; the run's is the default.
    const explicitModel = options.model ?? typed?.model ?? this.scriptModel(agent);
    const model = explicitModel ?? request.model;
    const effort = options.effort ?? typed?.effort;
    const startRequest: SubagentStartRequest = {
      parent: request.parent,
      prompt,
      description: label,
      instructions: this.setup.childInstructions(options.schema !== undefined),
      signal: this.controller.signal,
    };
    if (effort !== undefined) startRequest.effort = effort;
    if (typed?.persona !== undefined) startRequest.persona = typed.persona;
    if (worktree) startRequest.workspace = worktree.workspace;
    const spend: AgentSpend = { input: 0, output: 0, costUsd: this.startingCost(model) };
    startRequest.onUsage = (report) => this.charge(spend, report.model, report.usage);
    if (options.schema !== undefined) startRequest.outputSchema = options.schema;
    if (explicitModel !== undefined) startRequest.model = explicitModel;
    else if (request.model !== undefined) startRequest.defaultModel = request.model;
    // The same call of the same run (every attempt of it) is the same start: a provider that
    // queues children re-attaches to it instead of paying again.
    if (place) startRequest.idempotencyKey = `${this.setup.runId}/${place.key}/${place.n}`;
    // Set before the child starts, so activity during its start counts; it cannot expire before
    // this turn ends, by when the child is registered (or the clocks stopped).
    let child: Child | undefined;
    let clocks: AgentClocks | undefined;
    let run: SubagentRun;
    try {
      const { registry, provider } = this.setup;
      const { capabilities } = registry.get(provider);
      // A child may not run a workflow of its own: it would escape this run's caps, events and
      // cancellation. A provider that cannot hide tools runs its children outside Loom's tools,
      // unless an agent type lists the tools its child may see: then the provider must refuse.
      if (capabilities.toolFilter || (typed && typed.hidden.length > 0)) {
        startRequest.toolFilter = [...new Set([WORKFLOW_TOOL, ...(typed?.hidden ?? [])])];
      }
      clocks = this.startClocks(
        (limit, milliseconds) => {
          if (child) this.expired(child, limit, milliseconds);
        },
        options.timeoutMs,
        // Only a provider that reports its children's model activity can tell a stall.
        capabilities.activity,
      );
      if (clocks && capabilities.activity) {
        const heard = clocks;
        startRequest.onActivity = (kind) => heard.activity(kind);
      }
      run = registry.start(provider, startRequest);
    } catch (error) {
      this.stopClocks(clocks);
      if (worktree) void this.worktrees?.discard(worktree);
      // Reply first: the failure ends the run, so no queued call starts in the freed slot.
      this.setup.reply(call, startFailure(label, error));
      this.slots.release();
      return;
    }
    this.lastSeq += 1;
    if (this.lastSeq === FAN_OUT_AGENTS) tuneCompilerForFanOut();
    child = {
      seq: this.lastSeq,
      call,
      label,
      phase,
      schema: options.schema !== undefined,
      run,
      spend,
      ...(workflow !== undefined ? { workflow } : {}),
      ...(place ? { key: place.key, n: place.n } : {}),
    };
    if (model !== undefined) child.model = model;
    if (typed?.note !== undefined) child.notes = [typed.note];
    if (clocks) child.clocks = clocks;
    if (effort !== undefined) child.effortAsked = effort;
    if (worktree) {
      child.worktree = worktree;
      child.branch = worktree.branch;
    }
    this.begin(child);
    const started = child;
    run.result.then(
      (result) => this.settled(started, run, result),
      (error: unknown) =>
        this.settled(started, run, undefined, `the agent failed: ${errorMessage(error)}`),
    );
  }

  /**
   * Sets the child's time limit (`timeoutMs`, from now) and, when its provider reports model
   * activity, its stall detector (`stallMs` of model silence); either cancels it when it runs out.
   */
  private startClocks(
    expire: (limit: AgentLimitReason, milliseconds: number) => void,
    timeoutMs: number | undefined,
    reportsActivity: boolean,
  ): AgentClocks | undefined {
    if (timeoutMs === undefined && !reportsActivity) return undefined;
    const { stallMs } = this.setup.limits;
    const clocks: AgentClocks = new AgentClocks({
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(reportsActivity ? { stallMs } : {}),
      expire: (limit) => expire(limit, limit === 'timeout' ? (timeoutMs as number) : stallMs),
    });
    this.clocks.add(clocks);
    return clocks;
  }

  private stopClocks(clocks: AgentClocks | undefined): void {
    if (!clocks) return;
    clocks.stop();
    this.clocks.delete(clocks);
  }

  /** A clock ran out: the child is cancelled, and ends failed with the limit as its reason. */
  private expired(child: Child, limit: AgentLimitReason, milliseconds: number): void {
    if (!this.running.has(child.seq) || child.limit !== undefined) return;
    child.limit = limit;
    const why =
      limit === 'timeout'
        ? `the agent ran past its time limit of ${milliseconds} ms (timeoutMs)`
        : `the agent's model sent no output for ${milliseconds} ms (workflow.stallMs)`;
    try {
      child.run?.cancel(why);
    } catch {
      // The grace below ends it all the same.
    }
    child.clocks?.afterGrace(this.setup.limits.cancelGraceMs, () => this.abandon(child, limit));
  }

  /**
   * A child that ignored its limit's cancel for the grace period ends now, so it does not hold
   * its slot; its late result is ignored (and its run disposed) when it comes.
   */
  private abandon(child: Child, limit: AgentLimitReason): void {
    if (!this.running.has(child.seq)) return;
    // What it changed so far is kept on its branch; it may still be writing.
    const closing = this.closeWorktree(child);
    if (closing) void closing.then((end) => this.noteWorktreeEnd(child, end));
    this.end(child, 'failed', limit);
    this.setup.reply(child.call, { kind: 'failure', reason: limit });
    this.slots.release();
  }

  /** `result` is undefined when the child's run rejected (an infrastructure fault). */
  private settled(
    child: Child,
    run: SubagentRun,
    result: SubagentResult | undefined,
    fault?: string,
  ): void {
    this.stopClocks(child.clocks);
    try {
      run.dispose();
    } catch {
      // A child that cannot be released is the provider's fault; the run still settles.
    }
    if (!this.running.has(child.seq)) return;
    // A child that completed before its cancel reached it keeps its answer.
    const { outcome, reason } =
      child.limit !== undefined && result?.stopReason !== 'completed'
        ? { outcome: 'failed' as const, reason: child.limit }
        : judge(child, result, fault);
    this.noteEffort(child, result);
    const closing = this.closeWorktree(child);
    if (!closing) {
      this.conclude(child, outcome, reason, result);
      return;
    }
    // Its answer waits for its changes to be on its branch, so the script can use the branch.
    this.running.delete(child.seq);
    this.finishing.set(child.seq, child);
    void closing.then((end) => {
      if (!this.finishing.has(child.seq)) return;
      this.finishing.delete(child.seq);
      this.noteWorktreeEnd(child, end);
      this.conclude(child, outcome, reason, result);
    });
  }

  /** The child's outcome made known: journaled first when it completed, then ended and replied. */
  private conclude(
    child: Child,
    outcome: AgentOutcome,
    reason: string,
    result: SubagentResult | undefined,
  ): void {
    const { journal } = this.setup;
    if (outcome === 'completed' && journal && child.key !== undefined && child.n !== undefined) {
      this.journalThenEnd(journal, child, result);
      return;
    }
    this.end(child, outcome, reason, result?.usage);
    this.setup.reply(
      child.call,
      outcome === 'completed'
        ? { kind: 'ok', value: child.schema ? result?.structured : result?.output }
        : { kind: 'failure', reason },
    );
    this.slots.release();
  }

  /**
   * Durable before visible: the end event and the script's value wait until the call's journal
   * line is on disk, so a completed agent is never paid for twice. The slot is held until then
   * too, so the events never show more agents running than the run allows; the host loop does
   * not wait (the write and sync run on the thread pool, one for all lines of a turn).
   */
  private journalThenEnd(
    journal: RunJournal,
    child: Child,
    result: SubagentResult | undefined,
  ): void {
    const value = child.schema ? result?.structured : result?.output;
    const usage = result?.usage ?? { input: 0, output: 0 };
    this.running.delete(child.seq);
    this.finishing.delete(child.seq);
    this.journaling.set(child.seq, child);
    journal
      .record({
        key: child.key as string,
        n: child.n as number,
        kind: child.schema ? 'schema' : 'text',
        value,
        usage: { input: usage.input, output: usage.output, ...cacheOf(usage) },
        label: child.label,
        ...(child.workflow !== undefined ? { workflow: child.workflow } : {}),
        time: Date.now(),
      })
      .then(() => {
        // Ended meanwhile (the run was ended at once): its end is already out.
        if (!this.journaling.has(child.seq)) return;
        this.end(child, 'completed', '', result?.usage);
        this.setup.reply(child.call, { kind: 'ok', value });
        this.slots.release();
      });
  }

  /** Takes the child's worktree to close it; undefined when it has none or it is being closed. */
  private closeWorktree(child: Child): Promise<WorktreeEnd> | undefined {
    const { worktree } = child;
    if (!worktree || !this.worktrees) return undefined;
    child.worktree = undefined;
    return this.worktrees.finish(worktree, child.label);
  }

  private noteWorktreeEnd(child: Child, end: WorktreeEnd): void {
    child.branch = end.branch;
    if (end.problem !== undefined) child.notes = [...(child.notes ?? []), end.problem];
  }

  /** What became of the effort the child asked for, as its provider told (or did not). */
  private noteEffort(child: Child, result: SubagentResult | undefined): void {
    if (child.effortAsked === undefined || !result) return;
    child.effort = result.effort ?? {
      level: child.effortAsked,
      note: `the subagent provider ${this.setup.provider} does not pass an effort to its children: the agent ran without effort ${child.effortAsked}`,
    };
  }

  /** Every tool a child could be given, for an agent type's list to hide the rest; undefined: unknown. */
  private toolNames(): readonly string[] | undefined {
    if (this.setup.toolNames) return this.setup.toolNames();
    const runtime = this.setup.context.find(agentRuntimeKey);
    return runtime?.toolCatalog.entries().map((entry) => entry.name);
  }

  /**
   * What an agent has cost before its first request: 0 when its model has a price (or the run's
   * default model, unknown here, may), else unknown; an unpriced agent that never ran is not
   * shown as free.
   */
  private startingCost(model: string | undefined): number | undefined {
    if (!this.priced) return undefined;
    return model === undefined || priceOf(this.prices, model) !== undefined ? 0 : undefined;
  }

  /** Charges one model request of a child (or its unreported rest) to it and to the budget. */
  private charge(spend: AgentSpend, model: string | undefined, tokens: TokenCount): void {
    spend.input += tokens.input;
    spend.output += tokens.output;
    if (tokens.cachedInput) spend.cachedInput = (spend.cachedInput ?? 0) + tokens.cachedInput;
    if (tokens.cacheWrite) spend.cacheWrite = (spend.cacheWrite ?? 0) + tokens.cacheWrite;
    if (spend.costUsd !== undefined) {
      const cost = model === undefined ? undefined : costOf(this.prices, model, tokens);
      spend.costUsd = cost === undefined ? undefined : spend.costUsd + cost;
    }
    this.setup.budget.charge(tokens.input + tokens.output);
  }

  /**
   * `usage` is the child's own total when it reported one; what its requests did not report as
   * they ran (a provider that cannot, or a failed request) is charged now.
   */
  private end(child: Child, outcome: AgentOutcome, reason: string, usage?: Usage): void {
    this.stopClocks(child.clocks);
    this.running.delete(child.seq);
    this.journaling.delete(child.seq);
    this.finishing.delete(child.seq);
    const spend = child.spend ?? {
      input: 0,
      output: 0,
      costUsd: this.startingCost(child.model ?? this.setup.request.model),
    };
    const unreported = (field: keyof TokenCount) =>
      Math.max(0, (usage?.[field] ?? 0) - (spend[field] ?? 0));
    // The rest's cache reads and writes are priced as such (a provider that reports only at the end).
    const rest: TokenCount = {
      input: unreported('input'),
      output: unreported('output'),
      ...cacheOf({ cachedInput: unreported('cachedInput'), cacheWrite: unreported('cacheWrite') }),
    };
    const restTotal = rest.input + rest.output + (rest.cachedInput ?? 0) + (rest.cacheWrite ?? 0);
    if (restTotal > 0) this.charge(spend, child.model, rest);
    // After the rest is charged, each charged count is the larger of reported and total.
    const tokens: Usage = {
      ...usage,
      input: spend.input,
      output: spend.output,
      ...cacheOf(spend),
    };
    addUsage(this.usage, tokens);
    if (outcome !== 'completed') {
      this.failures.push({ seq: child.seq, label: child.label, outcome, reason });
    }
    const event: WorkflowAgentEndEvent = {
      runId: this.setup.runId,
      seq: child.seq,
      label: child.label,
      phase: child.phase,
      time: Date.now(),
      outcome,
      ...(outcome !== 'completed' ? { reason } : {}),
      usage: tokens,
      ...(spend.costUsd !== undefined ? { costUsd: spend.costUsd } : {}),
      ...(child.workflow !== undefined ? { workflow: child.workflow } : {}),
      ...(child.journaled ? { journaled: true as const } : {}),
      ...(child.branch !== undefined ? { branch: child.branch } : {}),
      ...(child.effort ? { effort: { ...child.effort } } : {}),
      ...(child.notes?.length ? { notes: [...child.notes] } : {}),
    };
    this.agents.push(summaryOf(event));
    this.totalCost =
      this.totalCost === undefined || spend.costUsd === undefined
        ? undefined
        : this.totalCost + spend.costUsd;
    this.setup.context.emit(workflowAgentEnd, event);
    this.setup.onChildEnded();
  }
}
