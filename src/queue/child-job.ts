/**
 * Runs one queued child on a worker: checks the job's data and revision, starts the child with
 * the in-process `spawn` provider at the parent's depth, forwards its activity (thinned) and
 * usage as progress, and returns its result. A child that ends `error` or `cancelled` is a
 * result, not a throw; a job that can never run here throws ChildJobRefusal (not retried); only
 * an infrastructure fault throws anything else.
 */
import { errorMessage, LoomError, type LoomErrorCode } from '../base/errors.js';
import type { SubagentRun, SubagentStartRequest } from '../subagent/contract.js';
import type { SubagentRegistry } from '../subagent/registry.js';
import { throttleActivity } from './activity-throttle.js';
import {
  CHILD_JOB_VERSION,
  type ChildJobData,
  type ChildJobProgress,
  type ChildJobResult,
} from './contract.js';
import { describeRevision } from './workspace-revision.js';

/** A job this worker will never run (another revision, a request the provider refuses). */
export class ChildJobRefusal extends LoomError {}

export interface ChildJobContext {
  registry: SubagentRegistry;
  /** This worker's checkout revision (null outside git). */
  revision: string | null;
  /** Run jobs queued at any revision. */
  anyRevision: boolean;
  /** `host:pid`, reported in `started` and the result. */
  worker: string;
  /** Aborting cancels the child; its result then says `cancelled`. */
  signal: AbortSignal;
  /** Hears each progress message in order; must not throw. */
  progress(update: ChildJobProgress): void;
  /** The clock of the activity throttle; default Date.now. */
  now?(): number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The job's data, checked for what the worker reads before anything starts. */
export function checkChildJobData(data: unknown): ChildJobData {
  if (!isObject(data) || data.version !== CHILD_JOB_VERSION) {
    const version = isObject(data) ? JSON.stringify(data.version) : 'none';
    throw new ChildJobRefusal(
      'INVALID_ARGUMENT',
      `the job's data is not a child of version ${CHILD_JOB_VERSION} (version ${version}); is the worker at the parent's Loom version?`,
    );
  }
  if (typeof data.prompt !== 'string' || typeof data.parentDepth !== 'number') {
    throw new ChildJobRefusal('INVALID_ARGUMENT', "the job's data has no prompt or parentDepth");
  }
  return data as unknown as ChildJobData;
}

function checkRevision(data: ChildJobData, context: ChildJobContext): void {
  if (context.anyRevision || data.revision === context.revision) return;
  throw new ChildJobRefusal(
    'WORKSPACE_MISMATCH',
    `the child was queued at revision ${describeRevision(data.revision)}, this worker's checkout is at ${describeRevision(context.revision)}; check out the same revision, or start the worker with --any-revision`,
  );
}

function startRequest(
  data: ChildJobData,
  context: ChildJobContext,
  progress: (update: ChildJobProgress) => void,
): SubagentStartRequest {
  const throttle = throttleActivity();
  const now = context.now ?? Date.now;
  return {
    parent: { sessionId: null, delegationDepth: data.parentDepth },
    prompt: data.prompt,
    ...(data.description !== undefined ? { description: data.description } : {}),
    ...(data.model !== undefined ? { model: data.model } : {}),
    ...(data.outputSchema !== undefined ? { outputSchema: data.outputSchema } : {}),
    ...(data.maxDepth !== undefined ? { maxDepth: data.maxDepth } : {}),
    ...(data.toolFilter !== undefined ? { toolFilter: data.toolFilter } : {}),
    ...(data.persona !== undefined ? { persona: data.persona } : {}),
    ...(data.instructions !== undefined ? { instructions: data.instructions } : {}),
    signal: context.signal,
    onActivity: (activity) => {
      if (throttle(activity, now())) progress({ kind: 'activity', activity });
    },
    onUsage: ({ usage, model }) => progress({ kind: 'usage', usage, model }),
  };
}

export async function runChildJob(
  data: unknown,
  context: ChildJobContext,
): Promise<ChildJobResult> {
  const job = checkChildJobData(data);
  checkRevision(job, context);
  // What the child reports before `started` is sent waits for it, so `started` comes first.
  let held: ChildJobProgress[] | undefined = [];
  const progress = (update: ChildJobProgress) => {
    if (held) held.push(update);
    else context.progress(update);
  };
  let run: SubagentRun;
  try {
    run = context.registry.start('spawn', startRequest(job, context, progress));
  } catch (error) {
    const code: LoomErrorCode = error instanceof LoomError ? error.code : 'INVALID_ARGUMENT';
    throw new ChildJobRefusal(code, errorMessage(error), { cause: error });
  }
  try {
    context.progress({ kind: 'started', worker: context.worker, sessionId: run.id });
    for (const update of held) context.progress(update);
    held = undefined;
    const result = await run.result;
    return {
      output: result.output,
      ...(result.structured !== undefined ? { structured: result.structured } : {}),
      ...(result.diagnostic !== undefined ? { diagnostic: result.diagnostic } : {}),
      stopReason: result.stopReason,
      sessionId: result.sessionId,
      usage: result.usage,
      worker: context.worker,
    };
  } finally {
    run.dispose();
  }
}
