/**
 * Children on other machines: the `queue` subagent provider puts each child on a BullMQ queue in
 * Redis, and `loom worker` processes on any machine with a checkout run them with the in-process
 * provider. This file is the wire between the two: a job's data, its progress messages, its
 * result, its id and the cancel channel. A job carries nothing secret: no key, no environment.
 */
import { createHash } from 'node:crypto';
import type { JsonSchema, Usage } from '../llm/contract.js';
import type { SubagentActivity, SubagentStopReason } from '../subagent/contract.js';

/** `subagents.providers.NAME` of type `queue`. */
export interface QueueProviderConfig {
  type: 'queue';
  /** The NAME of the environment variable holding the Redis URL (a password may be in it). */
  redis: { urlEnv: string };
  /** The BullMQ queue; default `loom-NAME`. */
  queue?: string;
  /** Runs a child may take (a worker lost mid-child counts as one); default 2. */
  attempts?: number;
  /** How long a worker's lock on a child lasts without renewal: a worker silent this long is taken for dead and its child handed on; default 30000 ms. */
  stalledMs?: number;
}

/** The BullMQ queue of provider `name`: config's `queue`, default `loom-NAME`. */
export function queueNameOf(name: string, config: QueueProviderConfig): string {
  return config.queue ?? `loom-${name}`;
}

export const DEFAULT_QUEUE_ATTEMPTS = 2;
export const DEFAULT_STALLED_MS = 30_000;
export const CHILD_JOB_VERSION = 1;

/** What a queued child needs to start on a worker: the parent's start request, minus what cannot cross. */
export interface ChildJobData {
  version: typeof CHILD_JOB_VERSION;
  prompt: string;
  description?: string;
  /** A model spec; absent: the worker's default model. */
  model?: string;
  outputSchema?: JsonSchema;
  maxDepth?: number;
  toolFilter?: string[];
  persona?: string;
  instructions?: string;
  /** The parent's delegation depth (the child is one deeper). */
  parentDepth: number;
  /** The parent's workspace revision (`git rev-parse HEAD`), or null outside a git checkout. */
  revision: string | null;
  /** The workflow run the child belongs to, for `loom worker status` and logs. */
  runId?: string;
}

/**
 * Streamed by a worker through the job's progress, so the parent sees a remote child live. One
 * progress update carries one message or, when several came while the last update was being
 * written, all of them in order (an array).
 */
export type ChildJobProgress =
  | { kind: 'started'; worker: string; sessionId: string }
  | { kind: 'activity'; activity: SubagentActivity }
  | { kind: 'usage'; usage: Usage; model: string };

/** The messages of one progress update, in order (one, or the array of several). */
export function progressMessages(data: unknown): unknown[] {
  return Array.isArray(data) ? data : [data];
}

/** A job's return value: the child's result, as the in-process provider gave it on the worker. */
export interface ChildJobResult {
  output: string;
  structured?: unknown;
  diagnostic?: string;
  stopReason: SubagentStopReason;
  /** The child's session id, in the worker's LOOM_HOME. */
  sessionId: string;
  usage: Usage;
  /** Which worker ran it (`host:pid`). */
  worker: string;
}

/** Every worker of `queue` listens here; a message is the id of a job to cancel. */
export function cancelChannel(queue: string): string {
  return `loom-cancel-${queue}`;
}

/**
 * The job id of a child whose start has a stable identity (a workflow run's id with the call's
 * journal key and occurrence): the same start always maps to the same job, so a resumed run
 * re-attaches to it. Hex only, since BullMQ job ids may not contain `:`.
 */
export function childJobId(idempotencyKey: string): string {
  return `child-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 40)}`;
}

export type QueueErrorCode = 'WORKSPACE_MISMATCH' | 'QUEUE_UNAVAILABLE';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<QueueErrorCode, true> {}
}
