/**
 * The interactive terminal's state, outside React: the open session's transcript (folded from
 * its log), the pending request, the todo list, the running turn's activity, workflow runs (folded from `workflow/*`
 * events), jobs and children counts, and the footer. Components read immutable snapshots through
 * `useSyncExternalStore`; changes are coalesced to one notification per frame, so hundreds of
 * agents do not redraw the screen hundreds of times. It never writes the log.
 */

import type { LoomSetup } from '../cli/build-runtime.js';
import { unknownModelNotes } from '../context/unknown-model-notes.js';
import { agentStatus } from '../core/agent-hooks.js';
import type { Disposer } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { SessionEvent } from '../core/session-events.js';
import { goalOf } from '../goal/install.js';
import { jobSettled, jobStarted } from '../jobs/contract.js';
import { planModeOf } from '../plan/install.js';
import { subagentStart } from '../subagent/contract.js';
import type { TodoItem } from '../todo/contract.js';
import { TodoFold } from '../todo/fold.js';
import type { WorkflowEventRecord } from '../workflow/contract.js';
import { onWorkflowEvents } from '../workflow/run-events.js';
import { ActivityFold, type TurnActivity, type WaitingFor } from './activity-state.js';
import type { FooterState, PendingRequest, ToolLineState, TranscriptItem } from './contract.js';
import { describeRule, type InteractionBroker } from './interaction-broker.js';
import { TranscriptFold } from './transcript-fold.js';
import { WorkflowRuns, type WorkflowView } from './workflow-runs.js';

export type { WorkflowView };

import { UsageLedger } from './usage-ledger.js';

/** The frame the store coalesces changes into. */
const FRAME_MS = 16;

/** A message the person typed while a turn ran, waiting for the agent to take it. */
export interface QueuedMessage {
  text: string;
  delivery: 'steer' | 'followup';
}

export interface TuiSnapshot {
  sessionId: string;
  finished: readonly TranscriptItem[];
  live: readonly TranscriptItem[];
  pending: PendingRequest | undefined;
  footer: FooterState;
  workflows: readonly WorkflowView[];
  /** The session's current todo list (empty before its first write). */
  todos: readonly TodoItem[];
  /** The running turn's activity (the status line); undefined while idle. */
  activity: TurnActivity | undefined;
  /** Oldest first; each leaves when its `user/message` is logged. */
  queuedMessages: readonly QueuedMessage[];
  /** Bumped on every change, so views keyed on it redraw. */
  version: number;
}

export class TuiStore {
  private fold = new TranscriptFold();
  private activity = new ActivityFold();
  private todos = new TodoFold();
  private todoList: readonly TodoItem[] = [];
  private readonly workflows = new WorkflowRuns();
  private readonly listeners = new Set<() => void>();
  private snapshot: TuiSnapshot;
  private scheduled: NodeJS.Timeout | undefined;
  private detachSession: Disposer = () => {};
  private readonly detachRuntime: Disposer;
  private contextTokens = 0;
  /** The window the latest `context/usage` named; unknown until a request was measured. */
  private contextWindow: number | undefined;
  private queuedMessages: readonly QueuedMessage[] = [];
  /** Tokens and cost per agent of the open session's tree (`/cost`, the footer). */
  readonly ledger: UsageLedger;

  constructor(
    private readonly setup: LoomSetup,
    private handle: AgentHandle,
    private readonly broker: InteractionBroker,
  ) {
    const root = setup.runtime.root;
    this.ledger = new UsageLedger(setup.prices);
    const undo = [
      this.ledger.follow(setup.runtime, () => this.changed()),
      onWorkflowEvents(root, (record) => {
        this.workflows.apply(record);
        if (record.type === 'workflow/agent-end' && !record.journaled) this.noteAgentEnd(record);
        this.changed();
      }),
      root.on(subagentStart, (event) => this.workflows.noteChildStart(event)),
      root.on(agentStatus, () => this.changed()),
      root.on(jobStarted, () => this.changed()),
      root.on(jobSettled, () => this.changed()),
      broker.onChange(() => {
        this.activity.waiting(waitingFor(broker.current), Date.now());
        this.changed();
      }),
      broker.onRuleAdded((rule) =>
        this.add({
          kind: 'notice',
          tone: 'info',
          text: `session rule added: ${describeRule(rule)} runs without asking until this session ends`,
        }),
      ),
    ];
    this.detachRuntime = () => {
      for (const dispose of undo) dispose();
    };
    this.attach(handle);
    this.snapshot = this.build();
  }

  get session(): AgentHandle {
    return this.handle;
  }

  /** Shows another session (after /new or /resume): its history is folded from its log. */
  attach(handle: AgentHandle): void {
    this.detachSession();
    this.handle = handle;
    this.fold = new TranscriptFold();
    this.activity = new ActivityFold();
    this.todos = new TodoFold();
    this.todoList = [];
    this.activity.waiting(waitingFor(this.broker.current), Date.now());
    this.contextTokens = 0;
    this.contextWindow = undefined;
    this.queuedMessages = [];
    for (const event of handle.log.events) this.applySession(event);
    // A reopened session's children may have spent tokens in earlier processes.
    this.ledger.reset(handle, handle.log.events.length > 0 ? this.setup.runtime.store : undefined);
    // Only new requests note an unknown model: a reopened session's history is not noted again.
    const modelNote = unknownModelNotes(this.setup.catalog, () => handle.agent.model);
    const undo = [
      handle.log.onAppend((event) => {
        this.applySession(event);
        const note = modelNote(event);
        if (note) this.fold.add({ kind: 'notice', tone: 'info', text: note });
        this.activity.apply(event);
        this.ledger.applyRoot(event);
        this.changed();
      }),
    ];
    undo.push(handle.context.on(agentStatus, () => this.changed()));
    const plan = planModeOf(handle);
    if (plan) undo.push(plan.onChange(() => this.changed()));
    this.detachSession = () => {
      for (const dispose of undo) dispose();
    };
    this.changed();
  }

  /** A block the terminal made itself (a shell command, a notice, a slash command's answer). */
  add(item: Parameters<TranscriptFold['add']>[0]): void {
    this.fold.add(item);
    this.changed();
  }

  /** Shows a message sent while the turn runs until the agent logs it. */
  queue(text: string, delivery: QueuedMessage['delivery']): void {
    this.queuedMessages = [...this.queuedMessages, { text, delivery }];
    this.changed();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): TuiSnapshot => this.snapshot;

  dispose(): void {
    this.detachSession();
    this.detachRuntime();
    if (this.scheduled) clearTimeout(this.scheduled);
  }

  private applySession(event: SessionEvent): void {
    this.fold.apply(event);
    if (event.type === 'todo/write') {
      this.todos.apply(event);
      this.todoList = this.todos.todos;
    }
    if (event.type === 'user/message')
      this.delivered(event.data as SessionEvent<'user/message'>['data']);
    if (event.type === 'assistant/message') {
      this.contextTokens = (event.data as SessionEvent<'assistant/message'>['data']).usage.input;
    }
    if (event.type === 'context/usage') {
      const usage = event.data as SessionEvent<'context/usage'>['data'];
      this.contextTokens = usage.tokens;
      this.contextWindow = usage.window;
    }
    // A compaction between requests (/compact) shows its effect before the next request.
    if (event.type === 'context/compact') {
      this.contextTokens = (event.data as SessionEvent<'context/compact'>['data']).after;
    }
  }

  /** A workflow agent's reported tokens join the ledger when its log is not seen here. */
  private noteAgentEnd(record: Extract<WorkflowEventRecord, { type: 'workflow/agent-end' }>): void {
    const agent = this.workflows.get(record.runId)?.agents.get(record.seq);
    this.ledger.noteReported({
      sessionId: agent?.sessionId ?? `${record.runId}#${record.seq}`,
      label: agent?.label ?? record.label,
      model: agent?.model ?? this.handle.agent.model.id,
      tokens: {
        input: record.usage.input,
        output: record.usage.output,
        ...(record.usage.cachedInput ? { cachedInput: record.usage.cachedInput } : {}),
        ...(record.usage.cacheWrite ? { cacheWrite: record.usage.cacheWrite } : {}),
      },
    });
  }

  private delivered(data: SessionEvent<'user/message'>['data']): void {
    if (data.source !== undefined) return;
    const index = this.queuedMessages.findIndex((message) => message.text === data.text);
    if (index === -1) return;
    this.queuedMessages = this.queuedMessages.filter((_, position) => position !== index);
  }

  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.snapshot = this.build();
      for (const listener of this.listeners) listener();
    }, FRAME_MS);
  }

  private build(): TuiSnapshot {
    const { setup, handle } = this;
    const sessionId = handle.log.header.sessionId;
    const goals = goalOf(handle);
    const goal = goals?.service.problem ? null : goals?.service.goal;
    const spent = this.ledger.total();
    const runningChildren = setup.subagents.services.children.runningUnder(sessionId);
    this.activity.agents(runningChildren);
    const footer: FooterState = {
      model: handle.agent.model.id,
      workspace: setup.runtime.cwd,
      contextTokens: this.contextTokens,
      ...(this.contextWindow !== undefined ? { contextWindow: this.contextWindow } : {}),
      tokens: spent.tokens,
      ...(spent.costUsd !== undefined && this.ledger.priced ? { costUsd: spent.costUsd } : {}),
      runningChildren,
      runningJobs: setup.jobs.service.running().length,
      runningWorkflows: this.workflows.running,
      mode: planModeOf(handle)?.mode ?? 'default',
      busy: handle.agent.status !== 'idle',
      queued: this.queuedMessages.length,
      ...(goal
        ? {
            goal: {
              round: goal.roundsStarted,
              maxRounds: goal.maxRounds,
              phase: goal.phase,
              armed: goals?.service.activation === 'armed',
            },
          }
        : {}),
    };
    return {
      sessionId,
      finished: this.fold.finished.slice(),
      live: markAwaiting(this.fold.live, this.broker.awaitingCalls),
      pending: this.broker.current,
      footer,
      workflows: this.workflows.list,
      todos: this.todoList,
      activity: this.activity.current,
      queuedMessages: this.queuedMessages,
      version: (this.snapshot?.version ?? 0) + 1,
    };
  }
}

/** The live items with each call that waits for its approval marked so (new objects only there). */
function markAwaiting(
  items: readonly TranscriptItem[],
  awaiting: ReadonlySet<string>,
): readonly TranscriptItem[] {
  if (awaiting.size === 0) return items;
  return items.map((item) =>
    item.kind === 'tool' ? { ...item, tool: markCall(item.tool, awaiting) } : item,
  );
}

function markCall(tool: ToolLineState, awaiting: ReadonlySet<string>): ToolLineState {
  const children = tool.children?.map((child) => markCall(child, awaiting));
  return {
    ...tool,
    ...(children ? { children } : {}),
    ...(awaiting.has(tool.callId) ? { awaitingApproval: true as const } : {}),
  };
}

function waitingFor(request: PendingRequest | undefined): WaitingFor | undefined {
  if (!request) return undefined;
  if (request.kind === 'approval') return 'approval';
  return request.kind === 'questions' ? 'answers' : 'review';
}
