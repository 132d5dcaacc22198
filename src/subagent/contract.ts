/**
 * The subagent seam: named providers start child agents; a capability a provider lacks is refused
 * before anything starts. A run's `result` settles with data for every outcome of the child
 * (completed, error, cancelled) and rejects only for an infrastructure fault. `subagent/start` and
 * `subagent/end` are observe-only and paired exactly once per run.
 */

import { LoomError } from '../base/errors.js';
import { defineEmit } from '../core/context.js';
import type { JsonSchema, ReasoningEffort, Usage } from '../llm/contract.js';

export interface SubagentCapabilities {
  /** Can capture a value matching `outputSchema` through a structured-output tool. */
  readonly outputSchema: boolean;
  /** Honours `maxDepth`. */
  readonly depthLimit: boolean;
  /** Can hide tools from the child (`toolFilter`). */
  readonly toolFilter: boolean;
  /** Can replace the child's persona section. */
  readonly persona: boolean;
  /** The child starts with the parent's completed turns (a fork), not a blank session. */
  readonly inheritsParentContext: boolean;
  /**
   * Reports the child's model activity through `onActivity`, so a caller can tell a child whose
   * model went silent from one that is working. Without it a caller cannot detect a stall.
   */
  readonly activity: boolean;
  /** Runs the child in a folder the caller names (`workspace`) instead of its own workspace. */
  readonly workspace: boolean;
}

/** Who is delegating: the parent agent's session, or none for a run started outside any chat. */
export interface SubagentParent {
  sessionId: string | null;
  /** The parent's delegation depth (0 for a root agent). */
  delegationDepth: number;
}

export interface SubagentStartRequest {
  parent: SubagentParent;
  /** The child's first user message, verbatim. */
  prompt: string;
  /** A short label for progress views and `list_agents`. */
  description?: string;
  /**
   * A model spec the child must run (the caller named it); default: `defaultModel`. A provider
   * whose agent chooses its own model refuses it.
   */
  model?: string;
  /**
   * The caller's default for a child that names no `model` (a workflow run's model choice);
   * default: the runtime's default model. A provider whose agent chooses its own model ignores it.
   */
  defaultModel?: string;
  /** A JSON Schema (as providers take tool parameters; `output-schema.ts`) the answer must match. */
  outputSchema?: JsonSchema;
  /** Depth limit for this child's line; default from config (3). 0 forbids delegation. */
  maxDepth?: number;
  /** Names of tools the child must not see. */
  toolFilter?: string[];
  /** Replaces the child's persona section. */
  persona?: string;
  /**
   * How hard the child's model should think (`ModelRequest.effort`); default the route's. A
   * provider that passes it on says what became of it in `result.effort`.
   */
  effort?: ReasoningEffort;
  /**
   * The folder the child works in (absolute): its file tools' root and its commands' folder,
   * instead of the runtime's workspace (a git worktree of it, say). Default: the workspace.
   */
  workspace?: string;
  /** Extra system prompt text for this child only (a workflow child's contract, say). */
  instructions?: string;
  /** Keep the child after its turn so it can be messaged again (`send_message`). */
  continuable?: boolean;
  /** The caller's cancellation; aborting cancels the child. */
  signal?: AbortSignal;
  /**
   * A stable identity of this start across attempts of its caller (a workflow run's id with the
   * call's journal key and occurrence). A provider that queues children (`queue`) maps it to one
   * job, so a resumed caller re-attaches to the child instead of starting another; others ignore it.
   */
  idempotencyKey?: string;
  /**
   * Hears each model request of the child as it finishes: its usage and the model spec that
   * answered. Must not throw. A provider that cannot see requests (acp) never calls it; the
   * child's `result.usage` still has the total.
   */
  onUsage?(report: SubagentUsageReport): void;
  /**
   * Hears the child's model activity as it happens (only from a provider with the `activity`
   * capability): a request sent, each piece of streamed output, the answer complete. Must not
   * throw; called often, so it must be cheap.
   */
  onActivity?(activity: SubagentActivity): void;
}

/**
 * One step of a child's model activity. `request`: a model request was sent and the child waits
 * for its output. `output`: the model streamed output (a text or reasoning delta). `answered`:
 * the model's answer is complete; the child now runs its tools (which have their own time
 * limits) or ends, and waits for no model until its next `request`.
 */
export type SubagentActivity = 'request' | 'output' | 'answered';

/** One finished model request of a child. */
export interface SubagentUsageReport {
  usage: Usage;
  model: string;
}

export type SubagentStopReason = 'completed' | 'error' | 'cancelled';

export interface SubagentResult {
  /** The child's final text (for a structured child, the captured value as JSON text). */
  output: string;
  /** The captured value, when the request had an `outputSchema` and the child delivered one. */
  structured?: unknown;
  /** Why the child did not complete, in words the parent model can act on. */
  diagnostic?: string;
  stopReason: SubagentStopReason;
  /** The child's session id. */
  sessionId: string;
  usage: Usage;
  /** What became of the request's `effort`; absent when it named none or the provider cannot tell. */
  effort?: EffortReport;
}

/**
 * A requested effort and how the child's model route sent it (`control`), or, when the route has
 * no reasoning control and the child ran without one, why (`note`). Exactly one of the two is set.
 */
export interface EffortReport {
  level: ReasoningEffort;
  control?: string;
  note?: string;
}

export interface SubagentRun {
  /** The child's session id. */
  readonly id: string;
  /** Never rejects for the child's own failures; only for an infrastructure fault. */
  readonly result: Promise<SubagentResult>;
  /** Cancels the child's running turn; the result settles as `cancelled`. */
  cancel(reason?: string): void;
  /** Releases the child (cancelling it if it still runs); idempotent. */
  dispose(): void;
}

export interface SubagentProvider {
  readonly name: string;
  readonly capabilities: SubagentCapabilities;
  /** Throws (synchronously) only for a request that cannot begin. */
  start(request: SubagentStartRequest): SubagentRun;
}

export interface SubagentStartEvent {
  runId: string;
  provider: string;
  parentSession: string | null;
  description: string;
  depth: number;
}

export interface SubagentEndEvent extends SubagentStartEvent {
  stopReason: SubagentStopReason;
  diagnostic?: string;
}

export const subagentStart = defineEmit<SubagentStartEvent>('subagent/start');
export const subagentEnd = defineEmit<SubagentEndEvent>('subagent/end');

export type SubagentErrorCode =
  | 'UNSUPPORTED_CAPABILITY'
  | 'UNSUPPORTED_SCHEMA'
  | 'DEPTH_LIMIT'
  | 'UNKNOWN_PROVIDER'
  | 'DUPLICATE_PROVIDER'
  | 'UNKNOWN_AGENT'
  | 'UNKNOWN_AGENT_TYPE'
  | 'NOT_AUTHORIZED'
  | 'DELEGATED_CALLER';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<SubagentErrorCode, true> {}
}

/** A request that cannot be served; the message names the field or agent at fault. */
export class SubagentError extends LoomError<SubagentErrorCode> {}

/** What a continuable child is made of, persisted in its session so it can be cold-resumed. */
export interface ChildDescriptor {
  provider: string;
  description: string;
  continuable: boolean;
  model?: string;
  toolFilter?: string[];
  persona?: string;
  /** Logged for a continuable child (resuming applies them again) and for an ACP agent's. */
  instructions?: string;
  maxDepth?: number;
  effort?: ReasoningEffort;
  workspace?: string;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    /** First event of a child's own history: how it was made. */
    'subagent/descriptor': ChildDescriptor;
  }
}
