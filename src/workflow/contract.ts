/**
 * The workflow seam: a model-written orchestration script runs and fans out children through the
 * subagent contract. `start` throws synchronously (a `WorkflowError`) for a run that cannot
 * begin; a started run's `result` never rejects. The `workflow/*` events are observe-only data
 * snapshots: `workflow/end` carries no value, and every `agent-start` has exactly one `agent-end`.
 */

import { LoomError } from '../base/errors.js';
import { defineEmit, serviceKey } from '../core/context.js';
import type { Usage } from '../llm/contract.js';
import type { TokenCount } from '../llm/prices.js';
import type { EffortReport, SubagentParent } from '../subagent/contract.js';

export type WorkflowErrorCode =
  | 'SCRIPT_PARSE'
  | 'META_INVALID'
  | 'INVALID_ARGUMENT'
  | 'UNSUPPORTED_OPTION'
  | 'UNSUPPORTED_SCHEMA'
  | 'AGENT_CAP'
  | 'ITEM_CAP'
  | 'AGENT_START'
  | 'RESULT_UNSERIALIZABLE'
  | 'CANCELLED'
  | 'NESTING_LIMIT'
  | 'BUDGET_EXHAUSTED'
  | 'SCRIPT_MEMORY'
  | 'RESULT_TOO_LARGE'
  | 'RUN_TIMEOUT';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<WorkflowErrorCode, true> {}
}

/** Why a run stopped with an error: a declared code, or `SCRIPT_ERROR` for the script's own throw. */
export type WorkflowRunErrorCode = WorkflowErrorCode | 'SCRIPT_ERROR';

/**
 * A workflow failure with a stable code. `fatal` errors end the whole script: hooks throw them
 * for misuse and caps, and `parallel`/`pipeline` re-throw them instead of nulling an item.
 */
export class WorkflowError extends LoomError<WorkflowErrorCode> {
  readonly fatal: boolean;

  constructor(
    code: WorkflowErrorCode,
    message: string,
    options: { fatal?: boolean; cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.fatal = options.fatal ?? true;
  }
}

export interface WorkflowPhase {
  title: string;
  detail?: string;
  /** A model spec for this phase's agents, unless an agent names its own. */
  model?: string;
}

/** The identity block: data, never code. Unknown keys are rejected. */
export interface WorkflowMeta {
  name: string;
  description: string;
  whenToUse?: string;
  phases?: WorkflowPhase[];
  /** The run's token ceiling (input + output of every child), unless the request names one. */
  budgetTokens?: number;
}

export interface WorkflowLimits {
  /** Children running at once (the run's slots); default 8 on every machine; 1..256. */
  maxConcurrentAgents: number;
  /** Children a run may start; default 1000. */
  maxTotalAgents: number;
  /** Items (thunks) one `parallel`/`pipeline` call may take; default 4096. */
  maxItemsPerCall: number;
  /** The script's first synchronous slice; default 5000 ms. */
  syncTimeoutMs: number;
  /** After cancel, how long the run may take to settle before its worker is terminated; default 5000 ms. */
  cancelGraceMs: number;
  /** The script's memory; a run past it ends with SCRIPT_MEMORY; default 256 MB. */
  maxScriptMemoryMb: number;
  /** The return value's JSON size; a larger one ends the run with RESULT_TOO_LARGE; default 16 MiB. */
  maxResultBytes: number;
  /** The whole run's time; past it the run ends with RUN_TIMEOUT; absent: no limit. */
  maxRunMs?: number;
  /** A child with no model output for this long is cancelled, reason `stalled`; default 300000 ms. */
  stallMs: number;
}

/** Where a script runs: a vm context in a worker thread, or QuickJS (WebAssembly) in one. */
export type WorkflowEngineKind = 'worker' | 'isolated';

export interface WorkflowStartRequest {
  meta: WorkflowMeta;
  /** The script body: plain JavaScript with top-level await, ending in `return <json value>`. */
  script: string;
  /** Given to the script as `args`; a copy, so the script cannot change the caller's object. */
  args?: Record<string, unknown>;
  /** Who delegates: the calling agent, or none for `loom workflow run`. */
  parent: SubagentParent;
  /** The default model spec for this run's agents. */
  model?: string;
  /** The subagent provider this run's agents start with; default: the service's (`spawn`). */
  provider?: string;
  limits?: Partial<WorkflowLimits>;
  /** Aborting cancels the run. */
  signal?: AbortSignal;
  /** The file the script came from, if any: nested `workflow()` paths resolve against its folder. */
  scriptPath?: string;
  /** Run again under this run id: calls its journal holds are answered without a child. */
  resumeRunId?: string;
  /** The run's token ceiling (input + output of every child); overrides `meta.budgetTokens`. */
  budgetTokens?: number;
}

/** A workflow read from a file: its header's meta, its body, and where it lives. */
export interface LoadedWorkflow {
  name: string;
  meta: WorkflowMeta;
  body: string;
  path: string;
}

export type WorkflowStopReason = 'completed' | 'error' | 'cancelled';
export type AgentOutcome = 'completed' | 'failed' | 'cancelled';

export interface WorkflowFailure {
  seq: number;
  label: string;
  outcome: Exclude<AgentOutcome, 'completed'>;
  reason: string;
}

/** One agent of a run as the result lists it (in seq order). */
export interface WorkflowAgentSummary {
  seq: number;
  label: string;
  outcome: AgentOutcome;
  /** Cache reads and writes (counted in `input` too) when its provider reported any. */
  tokens: TokenCount;
  /** Absent when a model the agent used has no price (or no prices are configured). */
  costUsd?: number;
  workflow?: string;
  journaled?: true;
  /** The branch its changes are on (`isolation: 'worktree'`). */
  branch?: string;
}

export interface WorkflowResult {
  runId: string;
  name: string;
  stopReason: WorkflowStopReason;
  /** The script's return value (JSON), or null when it did not complete. */
  value: unknown;
  error?: { code: WorkflowRunErrorCode; message: string };
  agentsStarted: number;
  failures: WorkflowFailure[];
  /** Tokens of every agent, in total. */
  usage: Usage;
  /** Every agent that started, in seq order. */
  agents: WorkflowAgentSummary[];
  /** The cost of every agent; absent when any agent's cost is unknown. */
  costUsd?: number;
}

export interface WorkflowRun {
  readonly id: string;
  /** Never rejects. */
  readonly result: Promise<WorkflowResult>;
  /** Asks the run to stop; it settles `cancelled` within the grace period. */
  cancel(reason?: string): void;
  /** Cancels if still running and releases the worker; idempotent. */
  dispose(): void;
  /**
   * Ends the run now, synchronously, for a process that must exit at once: running agents get
   * their `workflow/agent-end` (cancelled), `workflow/end` is emitted and the worker is
   * terminated. Returns the final result (the settled one when the run had already ended).
   */
  endNow(reason: string): WorkflowResult;
}

export interface WorkflowService {
  /** Throws a `WorkflowError` synchronously when the run cannot begin. */
  start(request: WorkflowStartRequest): WorkflowRun;
}

export const workflowServiceKey = serviceKey<WorkflowService>('workflow/service');

interface RunEvent {
  runId: string;
  time: number;
}
interface AgentEvent extends RunEvent {
  seq: number;
  label: string;
  phase: string;
}

/** `slots`: how many of its agents run at once (`maxConcurrentAgents`); absent in older runs' events. */
export type WorkflowStartEvent = RunEvent & {
  name: string;
  description: string;
  phases: string[];
  slots?: number;
};
/** `workflow`: the nested run's name, on events of a run that `workflow()` started. */
export type WorkflowPhaseEvent = RunEvent & { title: string; workflow?: string };
export type WorkflowLogEvent = RunEvent & { message: string; workflow?: string };
/** `journaled`: answered from the run's journal on resume, with no child started. */
export type WorkflowAgentStartEvent = AgentEvent & {
  model?: string;
  workflow?: string;
  journaled?: true;
};
export type WorkflowAgentEndEvent = AgentEvent & {
  outcome: AgentOutcome;
  reason?: string;
  /** The child's tokens; zeros when it reported none. */
  usage: Usage;
  /** Absent when the child's model has no price (or no prices are configured). */
  costUsd?: number;
  workflow?: string;
  journaled?: true;
  /** `isolation: 'worktree'`: the branch `loom/RUN_ID/AGENT` its changes were committed on. */
  branch?: string;
  /** The effort it asked for, and how its model route sent it or that it ran without it. */
  effort?: EffortReport;
  /** What else happened that the script's author should know (its worktree could not be cleaned up). */
  notes?: string[];
};
export type WorkflowEndEvent = RunEvent & {
  stopReason: WorkflowStopReason;
  agentsStarted: number;
  error?: { code: WorkflowRunErrorCode; message: string };
};

export const workflowStart = defineEmit<WorkflowStartEvent>('workflow/start');
export const workflowPhase = defineEmit<WorkflowPhaseEvent>('workflow/phase');
export const workflowLog = defineEmit<WorkflowLogEvent>('workflow/log');
export const workflowAgentStart = defineEmit<WorkflowAgentStartEvent>('workflow/agent-start');
export const workflowAgentEnd = defineEmit<WorkflowAgentEndEvent>('workflow/agent-end');
export const workflowEnd = defineEmit<WorkflowEndEvent>('workflow/end');

/** Every workflow event with its name, as `--events` writes them. */
export type WorkflowEventRecord =
  | ({ type: 'workflow/start' } & WorkflowStartEvent)
  | ({ type: 'workflow/phase' } & WorkflowPhaseEvent)
  | ({ type: 'workflow/log' } & WorkflowLogEvent)
  | ({ type: 'workflow/agent-start' } & WorkflowAgentStartEvent)
  | ({ type: 'workflow/agent-end' } & WorkflowAgentEndEvent)
  | ({ type: 'workflow/end' } & WorkflowEndEvent);
