/**
 * What one queue provider shares among all its children: the BullMQ Queue, one QueueEvents that
 * hears every job's progress and end and hands each to the listeners of that job, and a Redis
 * connection to publish cancels on. Opened at the first child, closed with the provider: once
 * closed nothing of it keeps the process alive. Never puts the Redis URL in an error.
 */
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { errorMessage } from '../base/errors.js';
import { type ChildJobData, type ChildJobResult, cancelChannel } from './contract.js';
import { QueueError } from './queue-error.js';
import { loadQueueLibraries } from './queue-libraries.js';
import { connectRedis, type RedisTarget, unavailable, withoutSecret } from './redis-connection.js';

/** What one job's watcher hears; each must not throw. */
export interface JobListener {
  progress(data: unknown): void;
  completed(returnvalue: unknown): void;
  failed(reason: string): void;
  removed(): void;
}

export type ChildJob = Job<ChildJobData, ChildJobResult, 'child'>;

export class QueueLink {
  readonly queue: Queue<ChildJobData, ChildJobResult, 'child'>;
  private readonly events: QueueEvents;
  private readonly publisher: Redis;
  private readonly queueName: string;
  private readonly target: RedisTarget;
  private readonly listeners = new Map<string, Set<JobListener>>();
  private closing: Promise<void> | undefined;

  /**
   * Connects, then starts hearing the queue's events from the last one already written: an event
   * written after `open` resolves is never missed, so a caller that listens before it looks at a
   * job's state cannot miss that job's end.
   */
  static async open(target: RedisTarget, queueName: string, timeoutMs: number): Promise<QueueLink> {
    const publisher = await connectRedis(target, timeoutMs);
    const { bullmq } = loadQueueLibraries();
    const connection = { url: target.url };
    let queue: Queue<ChildJobData, ChildJobResult, 'child'> | undefined;
    let events: QueueEvents | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const made = new bullmq.Queue<ChildJobData, ChildJobResult, 'child'>(queueName, {
        connection,
      });
      queue = made;
      made.on('error', () => {});
      const ready = (async () => {
        await made.waitUntilReady();
        const [last] = (await publisher.xrevrange(
          made.keys.events ?? '',
          '+',
          '-',
          'COUNT',
          1,
        )) as [string, string[]][];
        const listening = new bullmq.QueueEvents(queueName, {
          connection,
          lastEventId: last?.[0] ?? '0-0',
        });
        events = listening;
        listening.on('error', () => {});
        await listening.waitUntilReady();
        return listening;
      })();
      const opened = await Promise.race([
        ready,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
      return new QueueLink(made, opened, publisher, queueName, target);
    } catch (error) {
      await Promise.allSettled([events?.close(), queue?.close(), publisher.quit()]);
      throw unavailable(target, error);
    } finally {
      clearTimeout(timer);
    }
  }

  private constructor(
    queue: Queue<ChildJobData, ChildJobResult, 'child'>,
    events: QueueEvents,
    publisher: Redis,
    queueName: string,
    target: RedisTarget,
  ) {
    this.queue = queue;
    this.target = target;
    this.events = events;
    this.publisher = publisher;
    this.queueName = queueName;
    events.on('progress', ({ jobId, data }) => {
      for (const listener of this.listenersOf(jobId)) listener.progress(data);
    });
    events.on('completed', ({ jobId, returnvalue }) => {
      for (const listener of this.listenersOf(jobId)) listener.completed(returnvalue);
    });
    events.on('failed', ({ jobId, failedReason }) => {
      for (const listener of this.listenersOf(jobId)) listener.failed(failedReason);
    });
    events.on('removed', ({ jobId }) => {
      for (const listener of this.listenersOf(jobId)) listener.removed();
    });
  }

  /** Hears `jobId`'s events until the returned undo. */
  listen(jobId: string, listener: JobListener): () => void {
    let set = this.listeners.get(jobId);
    if (!set) {
      set = new Set();
      this.listeners.set(jobId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(jobId);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(jobId);
    };
  }

  /** Tells every worker of the queue to stop the child of `jobId` (the one running it does). */
  async publishCancel(jobId: string): Promise<void> {
    try {
      await this.publisher.publish(cancelChannel(this.queueName), jobId);
    } catch (error) {
      throw new QueueError(
        'QUEUE_UNAVAILABLE',
        `${this.target.label}: could not publish the cancel of ${jobId}: ${withoutSecret(errorMessage(error), this.target.url)}`,
      );
    }
  }

  /** Closes every connection; idempotent. */
  close(): Promise<void> {
    this.closing ??= Promise.allSettled([
      this.events.close(),
      this.queue.close(),
      this.publisher.quit().catch(() => this.publisher.disconnect()),
    ]).then(() => undefined);
    return this.closing;
  }

  private listenersOf(jobId: string): JobListener[] {
    const set = this.listeners.get(jobId);
    return set ? [...set] : [];
  }
}
