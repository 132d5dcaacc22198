/**
 * What `loom worker status` shows of a queue provider's queue: its depth by state, the workers
 * connected to it (from Redis's client list) and the children running now (its active jobs).
 * Reads only; never changes a job. The Redis URL never reaches the result or an error.
 */

import { compareText } from '../base/text-order.js';
import type { QueueProviderConfig } from './contract.js';
import { queueNameOf } from './contract.js';
import { loadQueueLibraries } from './queue-libraries.js';
import { connectRedis, DEFAULT_CONNECT_TIMEOUT_MS, redisTargetOf } from './redis-connection.js';

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
}

export interface ConnectedWorker {
  /** The worker's name (`host:pid` for `loom worker`), or `(unnamed)`. */
  name: string;
  /** Its connection's client address, as Redis sees it. */
  address?: string;
  /** Seconds since it connected. */
  ageSeconds?: number;
}

export interface RunningChild {
  jobId: string;
  label: string;
  runId?: string;
  /** The worker that runs it. */
  worker?: string;
  /** Milliseconds since it started on its worker. */
  ageMs?: number;
}

export interface QueueStatus {
  queue: string;
  counts: QueueCounts;
  workers: ConnectedWorker[];
  running: RunningChild[];
}

/** At most this many running children are listed. */
const RUNNING_LIMIT = 1000;

function workerName(rawName: string | undefined): string {
  const marker = rawName?.indexOf(':w:') ?? -1;
  return rawName !== undefined && marker >= 0 ? rawName.slice(marker + 3) : '(unnamed)';
}

/** One entry per worker: BullMQ names more than one connection of a worker. */
function connectedWorkers(clients: ReadonlyArray<Record<string, string>>): ConnectedWorker[] {
  const byName = new Map<string, ConnectedWorker>();
  for (const client of clients) {
    const name = workerName(client.rawname);
    const age = Number(client.age);
    const entry: ConnectedWorker = {
      name,
      ...(client.addr ? { address: client.addr } : {}),
      ...(Number.isFinite(age) ? { ageSeconds: age } : {}),
    };
    const known = byName.get(name);
    if (!known || (known.ageSeconds ?? 0) < (entry.ageSeconds ?? 0)) byName.set(name, entry);
  }
  return [...byName.values()].sort((left, right) => compareText(left.name, right.name));
}

export async function readQueueStatus(
  name: string,
  config: QueueProviderConfig,
  env: NodeJS.ProcessEnv,
  now = Date.now(),
): Promise<QueueStatus> {
  const queueName = queueNameOf(name, config);
  const connection = await connectRedis(
    redisTargetOf(name, config, env),
    DEFAULT_CONNECT_TIMEOUT_MS,
  );
  const queue = new (loadQueueLibraries().bullmq.Queue)(queueName, { connection });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    const clients = await queue.getWorkers();
    const active = await queue.getActive(0, RUNNING_LIMIT - 1);
    return {
      queue: queueName,
      counts: {
        waiting: counts.waiting ?? 0,
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        completed: counts.completed ?? 0,
        failed: counts.failed ?? 0,
      },
      workers: connectedWorkers(clients),
      running: active.map((job) => {
        const data = (job.data ?? {}) as { description?: unknown; runId?: unknown };
        return {
          jobId: job.id ?? '',
          label: typeof data.description === 'string' ? data.description : '',
          ...(typeof data.runId === 'string' ? { runId: data.runId } : {}),
          ...(job.processedBy ? { worker: job.processedBy } : {}),
          ...(job.processedOn ? { ageMs: Math.max(0, now - job.processedOn) } : {}),
        };
      }),
    };
  } finally {
    await queue.close().catch(() => undefined);
    await connection.quit().catch(() => undefined);
  }
}
