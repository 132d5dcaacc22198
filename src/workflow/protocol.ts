/**
 * The one wire format between the workflow host and its worker: a tag enum and a payload map per
 * direction, and typed send and read helpers. Private to the workflow engine. Every payload is
 * structured-clone data; nothing here may carry a function, a class instance or a realm value.
 */
import type { ReasoningEffort } from '../llm/contract.js';
import type { CompiledWasm } from '../quickjs/wasm.js';
import type { WorkflowErrorCode, WorkflowLimits, WorkflowMeta } from './contract.js';

/** Messages the host sends to the worker. */
export enum HostMessage {
  /** Run the body; never sent to a run cancelled before the worker was ready. */
  Go = 'go',
  /** The settled outcome of one `agent()` call. */
  AgentResult = 'agent-result',
  /** Every pending and future hook call now fails with a fatal CANCELLED. */
  Cancel = 'cancel',
  /** The answer to one `workflow-load`: the nested workflow's name and body, or a fatal error. */
  WorkflowLoaded = 'workflow-loaded',
  /**
   * The run's spent tokens, sent just before a reply when they changed; `exhausted`: every
   * pending and future hook call now fails with a fatal BUDGET_EXHAUSTED.
   */
  Budget = 'budget',
}

/** Messages the worker sends to the host. */
export enum WorkerMessage {
  /** The session listens; the host may send `go`. */
  Ready = 'ready',
  /**
   * The top-level script starts running now (its engine is loaded); the host counts `maxRunMs`
   * from here. Sent once, after `go`, before any message the script causes.
   */
  Started = 'started',
  /** The script called `agent()`; `call` numbers the call within the run. */
  AgentStart = 'agent-start',
  Phase = 'phase',
  Log = 'log',
  /** The script ended; sent exactly once, last. */
  Done = 'done',
  /** The script called `workflow()`; `load` numbers the call within the run, like `call`. */
  WorkflowLoad = 'workflow-load',
}

/** How one `agent()` call ended: its value, a failure (the script sees null), or a fatal error. */
export type AgentReply =
  | { kind: 'ok'; value: unknown }
  | { kind: 'failure'; reason: string }
  | { kind: 'fatal'; code: WorkflowErrorCode; message: string };

/** The `agent()` options that cross the wire, already checked and materialized. */
export interface AgentStartOptions {
  label?: string;
  phase?: string;
  schema?: Record<string, unknown>;
  model?: string;
  /** Cancels this child after that many milliseconds, reason `timeout`. */
  timeoutMs?: number;
  /** How hard the child's model thinks. */
  effort?: ReasoningEffort;
  /** `worktree`: the child works in its own git worktree of the workspace. */
  isolation?: 'worktree';
  /** An agent type's name, resolved on the host (its prompt, tools, model and effort). */
  agentType?: string;
}

/** What a `workflow-load` brings back: the nested meta's name and the body, or why it cannot run. */
export type WorkflowLoadReply =
  | { kind: 'ok'; name: string; script: string }
  | { kind: 'fatal'; code: WorkflowErrorCode; message: string };

/** How the script ended. `code` is absent for a value the script itself threw. */
export type DoneOutcome =
  | { kind: 'ok'; value: unknown }
  | { kind: 'error'; code?: WorkflowErrorCode; message: string; fatal: boolean };

export interface HostPayloads {
  [HostMessage.Go]: Record<string, never>;
  [HostMessage.AgentResult]: { call: number; reply: AgentReply };
  [HostMessage.Cancel]: { reason: string };
  [HostMessage.WorkflowLoaded]: { load: number; reply: WorkflowLoadReply };
  [HostMessage.Budget]: { spent: number; exhausted: boolean };
}

export interface WorkerPayloads {
  [WorkerMessage.Ready]: Record<string, never>;
  [WorkerMessage.Started]: Record<string, never>;
  /** `workflow`: the nested run's name, when a `workflow()` call's script made the call. */
  [WorkerMessage.AgentStart]: {
    call: number;
    prompt: string;
    options: AgentStartOptions;
    workflow?: string;
  };
  [WorkerMessage.Phase]: { title: string; workflow?: string };
  [WorkerMessage.Log]: { message: string; workflow?: string };
  [WorkerMessage.Done]: DoneOutcome;
  [WorkerMessage.WorkflowLoad]: { load: number; target: string };
}

/** One message on the wire: its tag and the payload the tag's map entry names. */
export type Envelope<Tags extends string, Payloads extends Record<Tags, unknown>> = {
  [Tag in Tags]: { tag: Tag; payload: Payloads[Tag] };
}[Tags];

export type HostEnvelope = Envelope<HostMessage, HostPayloads>;
export type WorkerEnvelope = Envelope<WorkerMessage, WorkerPayloads>;

/** What the worker is started with (its `workerData`). */
export interface WorkerSessionData {
  script: string;
  args: Record<string, unknown>;
  limits: WorkflowLimits;
  meta: WorkflowMeta;
  /** The run's token ceiling, or null without one (the script's `budget.total`). */
  budgetTotal: number | null;
  /**
   * The isolated engine's QuickJS, compiled and kept by the host (`quickjs/wasm.ts`), so the
   * code V8 optimizes for it outlives the thread; without it the thread compiles its own.
   */
  quickJs?: CompiledWasm;
}

/**
 * The envelopes one post from the host carries, in order: one envelope, or an array of several
 * sent in the same turn (`WireOutbox`). Anything else is one item, for the reader to refuse. The
 * worker posts one envelope at a time: a script that spins must not hold back what it sent.
 */
export function envelopesOf(post: unknown): readonly unknown[] {
  return Array.isArray(post) && post.length > 0 ? post : [post];
}

/** The part of a `MessagePort` (or a `Worker`, or `parentPort`) the engine uses. */
export interface WirePort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

export function sendToWorker<Tag extends HostMessage>(
  port: Pick<WirePort, 'postMessage'>,
  tag: Tag,
  payload: HostPayloads[Tag],
): void {
  port.postMessage({ tag, payload });
}

export function sendToHost<Tag extends WorkerMessage>(
  port: Pick<WirePort, 'postMessage'>,
  tag: Tag,
  payload: WorkerPayloads[Tag],
): void {
  port.postMessage({ tag, payload });
}

const hostTags = new Set<string>(Object.values(HostMessage));

function hasTag(message: unknown, tags: Set<string>): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { tag, payload } = message as { tag?: unknown; payload?: unknown };
  return (
    typeof tag === 'string' && tags.has(tag) && typeof payload === 'object' && payload !== null
  );
}

/** The message as a host envelope, or undefined for anything else (a protocol fault). */
export function readHostMessage(message: unknown): HostEnvelope | undefined {
  return hasTag(message, hostTags) ? (message as HostEnvelope) : undefined;
}

// The host reads the worker's messages through `readWorkerMessage` (wire-check.ts), which checks
// each payload too: the worker's port is within a script's reach.
