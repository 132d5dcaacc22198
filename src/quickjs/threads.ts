/**
 * Starting the threads scripts run in, and keeping some warm. A thread runs one of Loom's own
 * worker entries: the bundled `NAME.cjs` when built (one CommonJS file: no ESM loader to start),
 * else tsc's `.js`, else under tsx (Loom's own tests) the source, after registering tsx in the
 * thread (Node 20 does not give worker threads the main thread's module hooks). A thread gets no
 * Node flags: a host started with flags a worker refuses (`--eval`) must still run scripts. It
 * must never start anything but an entry its caller names.
 */
import { existsSync } from 'node:fs';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The entry `source` (a `.ts` path relative to `base`, the caller's `import.meta.url`) as this
 * build has it: `bundled` beside the caller when it exists, else the `.js`, else the source.
 */
export function threadEntry(base: string, source: string, bundled: string): URL {
  if (base.endsWith('.ts')) return new URL(source, base);
  const bundle = new URL(bundled, base);
  return existsSync(bundle) ? bundle : new URL(source.replace(/\.ts$/, '.js'), base);
}

/** A worker thread on `entry` (registering tsx first for a source entry), with no Node flags. */
export function startThread(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.href.endsWith('.ts')) return new Worker(entry, { ...options, execArgv: [] });
  const loader = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(loader)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv: [] });
}

/** What the pool needs of a thread. */
export interface PooledThread {
  /** Whether the thread has said it is ready (QuickJS loaded); a ready one is taken first. */
  readonly ready: boolean;
  readonly alive: boolean;
  terminate(): Promise<void>;
}

/**
 * Threads started ahead: `take` hands out a ready one (else the oldest, else a new one) and
 * starts another warming; `release` keeps a thread whose run ended cleanly while there is room.
 */
export class WarmThreads<Thread extends PooledThread> {
  private idle: Thread[] = [];
  private closed = false;

  constructor(
    private readonly spawn: (forget: (thread: Thread) => void) => Thread,
    private readonly warm: number,
    private readonly maxIdle: number,
  ) {
    this.refill();
  }

  take(): Thread {
    const index = Math.max(
      0,
      this.idle.findIndex((thread) => thread.ready),
    );
    const [taken] = this.idle.splice(index, 1);
    const thread = taken ?? this.start();
    this.refill();
    return thread;
  }

  release(thread: Thread, reusable: boolean): void {
    if (reusable && thread.alive && !this.closed && this.idle.length < this.maxIdle) {
      this.idle.push(thread);
      return;
    }
    void thread.terminate();
  }

  /** Ends the idle threads; the caller ends the busy ones it holds. */
  async close(): Promise<void> {
    this.closed = true;
    const idle = this.idle;
    this.idle = [];
    await Promise.all(idle.map((thread) => thread.terminate()));
  }

  private refill(): void {
    while (!this.closed && this.idle.length < this.warm) this.idle.push(this.start());
  }

  private start(): Thread {
    return this.spawn((thread) => {
      this.idle = this.idle.filter((other) => other !== thread);
    });
  }
}
