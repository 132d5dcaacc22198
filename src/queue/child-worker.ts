/**
 * `loom worker`'s engine: a BullMQ Worker on a queue provider's queue that runs each job's child
 * with the in-process `spawn` provider (src/queue/child-job.ts), aborts a child whose job id
 * arrives on the cancel channel, and logs one line as each job starts and ends. A stop lets the
 * running children end within a grace, then cancels them and hands their jobs back to the queue
 * (each a spent attempt). The Redis URL never reaches a log line or an error.
 */
import { hostname } from 'node:os';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { credentialValues, redactCredentials } from '../base/credential-redaction.js';
import { errorMessage } from '../base/errors.js';
import type { SubagentRegistry } from '../subagent/registry.js';
import { ChildJobRefusal, runChildJob } from './child-job.js';
import {
  type ChildJobProgress,
  type ChildJobResult,
  cancelChannel,
  DEFAULT_QUEUE_ATTEMPTS,
  DEFAULT_STALLED_MS,
  type QueueProviderConfig,
  queueNameOf,
} from './contract.js';
import { loadQueueLibraries } from './queue-libraries.js';
import {
  connectRedis,
  DEFAULT_CONNECT_TIMEOUT_MS,
  describeRedisError,
  redisTargetOf,
} from './redis-connection.js';
import { workspaceRevision } from './workspace-revision.js';

/** How long a stopping worker lets its running children end before it cancels them. */
export const DEFAULT_STOP_GRACE_MS = 10_000;
/** A cancel for a job this worker has not started yet is kept this long (the job may be starting). */
const EARLY_CANCEL_MS = 30_000;

export interface ChildWorkerOptions {
  /** The queue provider's name in config (its queue defaults to `loom-NAME`). */
  name: string;
  config: QueueProviderConfig;
  /** The worker runtime's provider registry; children start with its `spawn` provider. */
  registry: SubagentRegistry;
  /** The checkout whose revision jobs must match. */
  cwd: string;
  /** Children running at once; default 1. */
  concurrency?: number;
  /** Run jobs queued at any revision. */
  anyRevision?: boolean;
  /** Where the Redis URL variable is read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Hears the start and end line of every job, and Redis errors; default: standard error. */
  log?(line: string): void;
  /** Names this worker in results, progress and `loom worker status`; default `host:pid`. */
  workerName?: string;
}

export interface ChildWorker {
  readonly queue: string;
  readonly workerName: string;
  readonly revision: string | null;
  /** The ids of the jobs whose children run now. */
  running(): string[];
  /**
   * Stops taking jobs, lets running children end for `graceMs` (default 10 s), then cancels them
   * and hands their jobs back to the queue; closes every connection. Idempotent.
   */
  stop(graceMs?: number): Promise<void>;
}

interface RunningJob {
  controller: AbortController;
  /** Cancelled because the worker stops: the job goes back to the queue. */
  handedBack: boolean;
}

/** The BullMQ Worker options that decide when a lost worker's child is handed on. */
export interface StallOptions {
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
  maxStartedAttempts: number;
}

/**
 * A worker silent for `stalledMs` loses its lock; the next stalled check (at most half of that
 * later) hands its child to another worker. Every hand-on and every start counts against
 * `attempts`: a child is started at most `attempts` times, whatever ended the earlier runs.
 */
export function stallOptions(config: QueueProviderConfig): StallOptions {
  const attempts = config.attempts ?? DEFAULT_QUEUE_ATTEMPTS;
  const stalledMs = config.stalledMs ?? DEFAULT_STALLED_MS;
  return {
    lockDuration: stalledMs,
    stalledInterval: Math.max(250, Math.floor(stalledMs / 2)),
    maxStalledCount: attempts - 1,
    maxStartedAttempts: attempts,
  };
}

function labelOf(data: unknown): string {
  const description = (data as { description?: unknown } | null)?.description;
  if (typeof description !== 'string' || description.trim() === '') return '(no description)';
  const line = description.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

export async function startChildWorker(options: ChildWorkerOptions): Promise<ChildWorker> {
  const env = options.env ?? process.env;
  const { config } = options;
  const target = redisTargetOf(options.name, config, env);
  const url = env[config.redis.urlEnv];
  const secrets = [
    ...(url ? [{ value: url, kind: 'url' as const }] : []),
    ...credentialValues(env),
  ];
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const safe = (text: string) => redactCredentials(text, secrets);
  const queue = queueNameOf(options.name, config);
  const workerName = options.workerName ?? `${hostname()}:${process.pid}`;
  const revision = await workspaceRevision(options.cwd);
  const { bullmq } = loadQueueLibraries();
  const connect = () => connectRedis(target, DEFAULT_CONNECT_TIMEOUT_MS, { blocking: true });
  const connection = await connect();
  let subscriber: Redis;
  try {
    subscriber = await connect();
  } catch (error) {
    connection.disconnect();
    throw error;
  }
  const running = new Map<string, RunningJob>();
  const earlyCancels = new Map<string, number>();
  const channel = cancelChannel(queue);
  subscriber.on('message', (from: string, jobId: string) => {
    if (from !== channel) return;
    const entry = running.get(jobId);
    if (entry) {
      entry.controller.abort('the parent cancelled this child through the queue');
      return;
    }
    const now = Date.now();
    for (const [id, at] of earlyCancels) if (now - at > EARLY_CANCEL_MS) earlyCancels.delete(id);
    earlyCancels.set(jobId, now);
  });
  // While Redis is away every connection retries; one line per new error, not one per retry.
  let lastRedisError: string | undefined;
  const onRedisError = (error: unknown) => {
    const line = `loom worker: redis: ${safe(describeRedisError(error, target.url))}`;
    if (line === lastRedisError) return;
    lastRedisError = line;
    log(line);
  };
  const onRedisReady = () => {
    if (lastRedisError === undefined) return;
    lastRedisError = undefined;
    log('loom worker: redis: connected again');
  };
  for (const client of [subscriber, connection]) {
    client.on('error', onRedisError);
    client.on('ready', onRedisReady);
  }

  const processJob = async (job: Job): Promise<ChildJobResult> => {
    const id = job.id ?? '';
    const entry: RunningJob = { controller: new AbortController(), handedBack: false };
    running.set(id, entry);
    const early = earlyCancels.get(id);
    earlyCancels.delete(id);
    if (early !== undefined && Date.now() - early <= EARLY_CANCEL_MS) {
      entry.controller.abort('the parent cancelled this child through the queue');
    }
    const startedAt = Date.now();
    log(`job ${id}: started ${safe(labelOf(job.data))}`);
    // In order, one write at a time; what comes while a write is out goes in the next one,
    // together. A lost update (the job removed, say) costs only its messages.
    let updates = Promise.resolve();
    let pending: ChildJobProgress[] = [];
    const write = () => {
      const batch = pending;
      pending = [];
      return job.updateProgress(batch.length === 1 ? (batch[0] as ChildJobProgress) : batch);
    };
    const progress = (update: ChildJobProgress) => {
      pending.push(update);
      if (pending.length > 1) return;
      updates = updates.then(write, write).catch(() => undefined);
    };
    try {
      const result = await runChildJob(job.data, {
        registry: options.registry,
        revision,
        anyRevision: options.anyRevision === true,
        worker: workerName,
        signal: entry.controller.signal,
        progress,
      });
      await updates.catch(() => undefined);
      if (result.stopReason === 'cancelled' && entry.handedBack) {
        log(`job ${id}: handed back in ${seconds(startedAt)} (the worker stopped)`);
        throw new Error(`worker ${workerName} stopped before the child ended`);
      }
      log(`job ${id}: ${result.stopReason} in ${seconds(startedAt)}`);
      return result;
    } catch (error) {
      if (entry.handedBack) throw error;
      if (error instanceof ChildJobRefusal) {
        const reason = safe(`${error.code}: ${error.message}`);
        log(`job ${id}: failed in ${seconds(startedAt)}: ${reason}`);
        throw new bullmq.UnrecoverableError(reason);
      }
      log(`job ${id}: failed in ${seconds(startedAt)}: ${safe(errorMessage(error))}`);
      throw error;
    } finally {
      running.delete(id);
    }
  };

  const worker = new bullmq.Worker(queue, processJob, {
    connection,
    concurrency: options.concurrency ?? 1,
    name: workerName,
    ...stallOptions(config),
  });
  worker.on('error', onRedisError);
  const ready = new Promise<void>((resolve) => worker.once('ready', () => resolve()));
  try {
    await subscriber.subscribe(channel);
    await worker.waitUntilReady();
    await ready;
  } catch (error) {
    await worker.close(true).catch(() => undefined);
    subscriber.disconnect();
    connection.disconnect();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = async (graceMs: number) => {
    const closing = worker
      .close()
      .catch((error: unknown) => log(`loom worker: could not close: ${safe(errorMessage(error))}`));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([closing, graceOver]);
    clearTimeout(timer);
    for (const entry of running.values()) {
      entry.handedBack = true;
      entry.controller.abort('the worker stopped');
    }
    await closing;
    await Promise.allSettled([subscriber.quit(), connection.quit()]);
  };
  return {
    queue,
    workerName,
    revision,
    running: () => [...running.keys()],
    stop(graceMs = DEFAULT_STOP_GRACE_MS) {
      stopping ??= stop(graceMs);
      return stopping;
    },
  };
}
