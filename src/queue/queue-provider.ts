/**
 * The `queue` subagent provider: each child becomes a BullMQ job (src/queue/contract.ts is the
 * wire) that a `loom worker` on any machine runs with its in-process provider. A run's `id` is
 * the job's id (the child's session lives on the worker; its id arrives in `result.sessionId`).
 * A start with an idempotency key re-attaches to its job instead of queueing another. Requests a
 * worker cannot honour are refused before anything is queued; Redis problems reject the run's
 * result with QUEUE_UNAVAILABLE, and never with the Redis URL in the message.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../base/errors.js';
import { addUsage, type Usage } from '../llm/contract.js';
import {
  type SubagentActivity,
  type SubagentCapabilities,
  SubagentError,
  type SubagentProvider,
  type SubagentResult,
  type SubagentRun,
  type SubagentStartRequest,
} from '../subagent/contract.js';
import { checkDepth, DEFAULT_MAX_DEPTH } from '../subagent/in-process-provider.js';
import { assertSupportedSchema, cloneSchema } from '../subagent/structured-output/output-schema.js';
import {
  CHILD_JOB_VERSION,
  type ChildJobData,
  type ChildJobResult,
  childJobId,
  DEFAULT_QUEUE_ATTEMPTS,
  progressMessages,
  type QueueProviderConfig,
  queueNameOf,
} from './contract.js';
import { QueueError } from './queue-error.js';
import { loadQueueLibraries } from './queue-libraries.js';
import { type JobListener, QueueLink } from './queue-link.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, redisUrlFrom, withoutSecret } from './redis-connection.js';
import { workspaceRevision } from './workspace-revision.js';

/** How long a finished job is kept in Redis (so a resumed run can still read its answer). */
export const FINISHED_JOB_AGE_SECONDS = 86_400;
/** How often a cancelled child that still runs is looked at again (and its cancel sent again). */
export const DEFAULT_CANCEL_RECHECK_MS = 5000;

export interface QueueProviderOptions {
  name: string;
  config: QueueProviderConfig;
  /** The workspace whose revision (`git rev-parse HEAD`) the children must run on. */
  cwd: string;
  /** Where the Redis URL's variable is read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Depth limit when the request names none; default 3. */
  maxDepth?: number;
  /** How long reaching Redis may take before a child fails; default 5000 ms. */
  connectTimeoutMs?: number;
  /** See DEFAULT_CANCEL_RECHECK_MS. */
  cancelRecheckMs?: number;
}

export interface QueueProvider extends SubagentProvider {
  /**
   * Closes the provider's Redis connections, so they no longer keep the process alive; a child
   * not yet ended rejects with QUEUE_UNAVAILABLE (its job is left to finish on its worker, where
   * a resumed run can re-attach to it). Idempotent.
   */
  close(): Promise<void>;
}

const capabilities: SubagentCapabilities = {
  outputSchema: true,
  depthLimit: true,
  toolFilter: true,
  persona: true,
  inheritsParentContext: false,
  activity: true,
  // A worker on another machine works in its own checkout of the revision.
  workspace: false,
};

/** The queue a provider uses: config `queue`, default `loom-NAME`. */
/** What the runs of one provider share. */
interface Shared {
  options: QueueProviderOptions;
  label: string;
  link(): Promise<QueueLink>;
  runs: Set<QueueChildRun>;
}

export function createQueueProvider(options: QueueProviderOptions): QueueProvider {
  const queueName = queueNameOf(options.name, options.config);
  const label = `queue provider ${options.name} (queue ${queueName})`;
  let opening: Promise<QueueLink> | undefined;
  let closed: Promise<void> | undefined;
  const shared: Shared = {
    options,
    label,
    runs: new Set(),
    link() {
      if (closed) return Promise.reject(new QueueError('QUEUE_UNAVAILABLE', `${label} is closed`));
      if (!opening) {
        const attempt = (async () => {
          const url = redisUrlFrom(options.env ?? process.env, options.config.redis.urlEnv, label);
          return QueueLink.open(
            { label, variable: options.config.redis.urlEnv, url },
            queueName,
            options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
          );
        })();
        opening = attempt;
        attempt.then(
          (link) => {
            if (closed) void link.close();
          },
          () => {
            // The next child tries again (the variable may be set, Redis may be up by then).
            if (opening === attempt) opening = undefined;
          },
        );
      }
      return opening;
    },
  };
  return {
    name: options.name,
    capabilities,
    start: (request) => startChild(shared, request),
    close() {
      closed ??= (async () => {
        const error = new QueueError('QUEUE_UNAVAILABLE', `${label} was closed`);
        for (const run of [...shared.runs]) run.abandon(error);
        const link = await opening?.catch(() => undefined);
        await link?.close();
      })();
      return closed;
    },
  };
}

function startChild(shared: Shared, request: SubagentStartRequest): SubagentRun {
  const { options } = shared;
  if (request.continuable) {
    throw new SubagentError(
      'UNSUPPORTED_CAPABILITY',
      `subagent provider ${options.name} runs one-shot children on workers; it cannot keep one to message later (run it in the foreground)`,
    );
  }
  checkDepth(request, options.maxDepth ?? DEFAULT_MAX_DEPTH);
  const schema = request.outputSchema
    ? assertSupportedSchema(cloneSchema(request.outputSchema))
    : undefined;
  const data: Omit<ChildJobData, 'revision'> = {
    version: CHILD_JOB_VERSION,
    prompt: request.prompt,
    parentDepth: request.parent.delegationDepth,
  };
  if (request.description !== undefined) data.description = request.description;
  // A worker is Loom: it runs the caller's default as it would an explicit model.
  const model = request.model ?? request.defaultModel;
  if (model !== undefined) data.model = model;
  if (schema !== undefined) data.outputSchema = schema;
  if (request.maxDepth !== undefined) data.maxDepth = request.maxDepth;
  if (request.toolFilter !== undefined) data.toolFilter = [...request.toolFilter];
  if (request.persona !== undefined) data.persona = request.persona;
  if (request.instructions !== undefined) data.instructions = request.instructions;
  const key = request.idempotencyKey;
  // A workflow child's key is `RUN_ID/KEY/N`.
  if (key?.includes('/')) data.runId = key.slice(0, key.indexOf('/'));
  const jobId = key !== undefined ? childJobId(key) : `child-${randomUUID().replaceAll('-', '')}`;
  const run = new QueueChildRun(shared, request, jobId, data);
  return {
    id: jobId,
    result: run.result,
    cancel: (reason) => run.cancel(reason ?? 'the subagent was cancelled'),
    dispose: () => run.cancel('the subagent was released'),
  };
}

const STOP_REASONS = new Set(['completed', 'error', 'cancelled']);
const ACTIVITIES = new Set<unknown>(['request', 'output', 'answered']);

/** A job's return value, if it has the shape of ChildJobResult. */
function childResultOf(value: unknown): ChildJobResult | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const candidate = value as Partial<ChildJobResult>;
  const usage = candidate.usage as Partial<Usage> | undefined;
  if (
    typeof candidate.output !== 'string' ||
    typeof candidate.sessionId !== 'string' ||
    !STOP_REASONS.has(candidate.stopReason as string) ||
    typeof usage?.input !== 'number' ||
    typeof usage.output !== 'number'
  ) {
    return undefined;
  }
  return candidate as ChildJobResult;
}

class QueueChildRun implements JobListener {
  readonly result: Promise<SubagentResult>;
  private readonly shared: Shared;
  private readonly request: SubagentStartRequest;
  private readonly id: string;
  private resolve!: (result: SubagentResult) => void;
  private reject!: (error: unknown) => void;
  /** `before`: no job is known yet; `adding`: being added; `known`: the job exists (or existed). */
  private phase: 'before' | 'adding' | 'known' = 'before';
  private settled = false;
  private cancelReason: string | undefined;
  private link: QueueLink | undefined;
  private stopListening: (() => void) | undefined;
  private recheck: NodeJS.Timeout | undefined;
  /** The child's session on its worker, once it started. */
  private sessionId: string | undefined;
  /** What the child's model requests cost so far, from its usage reports. */
  private usage: Usage = { input: 0, output: 0 };
  private readonly onAbort = () => {
    const reason: unknown = this.request.signal?.reason;
    this.cancel(typeof reason === 'string' ? reason : 'the parent cancelled this subagent');
  };

  constructor(
    shared: Shared,
    request: SubagentStartRequest,
    id: string,
    data: Omit<ChildJobData, 'revision'>,
  ) {
    this.shared = shared;
    this.request = request;
    this.id = id;
    this.result = new Promise<SubagentResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    shared.runs.add(this);
    request.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (request.signal?.aborted) queueMicrotask(this.onAbort);
    this.drive(data).catch((error: unknown) => this.abandon(this.infrastructure(error)));
  }

  cancel(reason: string): void {
    if (this.settled || this.cancelReason !== undefined) return;
    this.cancelReason = reason;
    if (this.phase === 'before') this.finishCancelled();
    else if (this.phase === 'known') {
      this.withdraw().catch((error: unknown) => this.abandon(this.infrastructure(error)));
    }
    // While `adding`, `drive` withdraws the job once it is added.
  }

  /** Ends the run with an infrastructure fault (the result rejects). */
  abandon(error: unknown): void {
    if (this.end()) this.reject(error);
  }

  progress(data: unknown): void {
    if (Array.isArray(data)) {
      for (const message of progressMessages(data)) this.progress(message);
      return;
    }
    if (this.settled || typeof data !== 'object' || data === null) return;
    const progress = data as { kind?: unknown } & Record<string, unknown>;
    switch (progress.kind) {
      case 'started':
        if (typeof progress.sessionId === 'string') this.sessionId = progress.sessionId;
        return;
      case 'activity':
        if (ACTIVITIES.has(progress.activity)) this.report(progress.activity as SubagentActivity);
        return;
      case 'usage': {
        const usage = progress.usage as Usage | undefined;
        if (typeof usage?.input !== 'number' || typeof usage.output !== 'number') return;
        this.usage = addUsage(this.usage, usage);
        try {
          this.request.onUsage?.({ usage, model: String(progress.model ?? '') });
        } catch {
          // A listener must not throw; one that does loses its report, not the child.
        }
        return;
      }
      default:
        return;
    }
  }

  completed(returnvalue: unknown): void {
    const value = childResultOf(returnvalue);
    if (!value) {
      this.finishError(
        `job ${this.id} ended without a child's result (is the worker a loom worker?)`,
      );
      return;
    }
    const result: SubagentResult = {
      output: value.output,
      stopReason: value.stopReason,
      sessionId: value.sessionId,
      usage: value.usage,
    };
    if (value.structured !== undefined) result.structured = value.structured;
    if (value.diagnostic !== undefined) result.diagnostic = value.diagnostic;
    if (value.stopReason === 'cancelled' && this.cancelReason !== undefined) {
      result.diagnostic = this.cancelReason;
    }
    this.finish(result);
  }

  failed(reason: string): void {
    if (this.cancelReason !== undefined) this.finishCancelled();
    else this.finishError(`job ${this.id} failed: ${reason}`);
  }

  removed(): void {
    if (this.cancelReason !== undefined) this.finishCancelled();
    else this.finishError(`job ${this.id} was removed from the queue before it ended`);
  }

  private async drive(data: Omit<ChildJobData, 'revision'>): Promise<void> {
    const [link, revision] = await Promise.all([
      this.shared.link(),
      workspaceRevision(this.shared.options.cwd),
    ]);
    if (this.settled) {
      if (this.cancelReason !== undefined) await this.stopJob(link);
      return;
    }
    this.link = link;
    // Listening first: the job's end cannot slip between its state and the wait for it.
    this.stopListening = link.listen(this.id, this);
    const state = await link.queue.getJobState(this.id);
    if (this.settled) {
      if (this.cancelReason !== undefined) await this.stopJob(link);
      return;
    }
    if (state === 'completed' || state === 'failed') {
      this.phase = 'known';
      await this.answerFromJob(link, state);
      return;
    }
    if (state === 'unknown') {
      if (this.cancelReason !== undefined) {
        this.finishCancelled();
        return;
      }
      this.phase = 'adding';
      await link.queue.add(
        'child',
        { ...data, revision },
        {
          jobId: this.id,
          attempts: this.shared.options.config.attempts ?? DEFAULT_QUEUE_ATTEMPTS,
          removeOnComplete: { age: FINISHED_JOB_AGE_SECONDS },
          removeOnFail: { age: FINISHED_JOB_AGE_SECONDS },
        },
      );
    }
    this.phase = 'known';
    if (this.settled) return;
    // Waiting for a worker is not waiting on a model: a stall clock rests until the child's
    // first model request.
    if (state !== 'active') this.report('answered');
    if (this.cancelReason !== undefined) await this.withdraw();
  }

  /** Cancels the job: removed while it waits, else every worker is told to stop it. */
  private async withdraw(): Promise<void> {
    const link = this.link;
    if (!link || this.settled) return;
    if ((await link.queue.remove(this.id)) === 1) {
      this.finishCancelled();
      return;
    }
    await this.lookAgain(link);
    if (this.settled) return;
    this.recheck = setInterval(() => {
      this.lookAgain(link).catch((error: unknown) => this.abandon(this.infrastructure(error)));
    }, this.shared.options.cancelRecheckMs ?? DEFAULT_CANCEL_RECHECK_MS);
    this.recheck.unref();
  }

  /**
   * For a run cancelled before it looked at its job (it settled at once): a job that already
   * existed (a re-attach) is stopped all the same; a finished one is left for a later re-attach.
   */
  private async stopJob(link: QueueLink): Promise<void> {
    const state = await link.queue.getJobState(this.id);
    if (state === 'unknown' || state === 'completed' || state === 'failed') return;
    if (state === 'active' || (await link.queue.remove(this.id)) === 0) {
      await link.publishCancel(this.id);
    }
  }

  /** After a cancel: a vanished job is cancelled, a finished one answers, a running one is told again. */
  private async lookAgain(link: QueueLink): Promise<void> {
    const state = await link.queue.getJobState(this.id);
    if (this.settled) return;
    if (state === 'unknown') this.finishCancelled();
    else if (state === 'completed' || state === 'failed') await this.answerFromJob(link, state);
    else await link.publishCancel(this.id);
  }

  private async answerFromJob(link: QueueLink, state: 'completed' | 'failed'): Promise<void> {
    const { Job } = loadQueueLibraries().bullmq;
    const job = await Job.fromId<ChildJobData, ChildJobResult>(link.queue, this.id);
    if (this.settled) return;
    if (!job) this.removed();
    else if (state === 'completed') this.completed(job.returnvalue);
    else this.failed(job.failedReason);
  }

  private report(activity: SubagentActivity): void {
    try {
      this.request.onActivity?.(activity);
    } catch {
      // A listener must not throw; one that does loses its report, not the child.
    }
  }

  private finishCancelled(): void {
    this.finish({
      output: '',
      stopReason: 'cancelled',
      diagnostic: this.cancelReason ?? 'the subagent was cancelled',
      sessionId: this.sessionId ?? this.id,
      usage: this.usage,
    });
  }

  private finishError(diagnostic: string): void {
    this.finish({
      output: '',
      stopReason: 'error',
      diagnostic: `${this.shared.label}: ${diagnostic}`,
      sessionId: this.sessionId ?? this.id,
      usage: this.usage,
    });
  }

  private finish(result: SubagentResult): void {
    if (this.end()) this.resolve(result);
  }

  /** Marks the run settled and lets go of everything it holds; false if it already was. */
  private end(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.stopListening?.();
    clearInterval(this.recheck);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    this.shared.runs.delete(this);
    return true;
  }

  /** A fault of Redis or BullMQ as QUEUE_UNAVAILABLE naming the provider, never the URL. */
  private infrastructure(error: unknown): QueueError {
    if (error instanceof QueueError) return error;
    const variable = this.shared.options.config.redis.urlEnv;
    const url = (this.shared.options.env ?? process.env)[variable] ?? '';
    const message = url ? withoutSecret(errorMessage(error), url) : errorMessage(error);
    return new QueueError('QUEUE_UNAVAILABLE', `${this.shared.label}: job ${this.id}: ${message}`);
  }
}
