/**
 * The host's watch on workflow threads' memory (`maxScriptMemoryMb`). V8's own heap limit alone
 * thrashes in garbage collection for seconds before it gives up, so the host reads each watched
 * thread's heap in use every `HEAP_POLL_MS` through the inspector's `NodeWorker` domain, whose
 * messages reach a thread even while its script spins (V8 interrupts), and reports the first
 * reading past the limit. V8's limit (`heapCapMb`) stays as the backstop. It must never evaluate
 * anything in a thread, enable a debugger domain, or keep the process alive.
 */

import type { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { Disposer } from '../core/context.js';

/** How often a watched thread's heap is read. */
export const HEAP_POLL_MS = 100;

const MEGABYTE = 1024 * 1024;

interface Watch {
  limitBytes: number;
  onExceeded(usedBytes: number): void;
  /** A reading asked for and not answered yet: one at a time per thread. */
  asking: boolean;
  reported: boolean;
}

interface InspectorModule {
  Session: new () => Session;
}

let inspectorModule: InspectorModule | null | undefined;

/** `node:inspector`, or null in a Node built without it. */
function loadInspector(): InspectorModule | null {
  if (inspectorModule !== undefined) return inspectorModule;
  inspectorModule = null;
  if (process.features.inspector) {
    try {
      inspectorModule = createRequire(import.meta.url)('node:inspector') as InspectorModule;
    } catch {}
  }
  return inspectorModule;
}

/** Whether the host can read threads' heaps; else V8's limit alone applies. */
export function canWatchHeaps(): boolean {
  return loadInspector() !== null;
}

/**
 * V8's heap limit for a thread whose script may use `limitMb`: the limit itself when the host
 * cannot watch, else twice the limit (at least 64 MB more), so the watch, not V8's slow end,
 * stops the script; the headroom holds what a script allocates between two readings, and one
 * step that copies a large array. V8 still stops a script the watch misses.
 */
export function heapCapMb(limitMb: number): number {
  return canWatchHeaps() ? Math.max(2 * limitMb, limitMb + 64) : limitMb;
}

interface HeapReply {
  id?: unknown;
  result?: { usedSize?: unknown };
}

/** One inspector session for every watched thread of the process, open while any is watched. */
class HeapWatcher {
  private session: Session | undefined;
  private readonly watches = new Map<string, Watch>();
  /** The inspector's session id of each attached thread, by thread id. */
  private readonly attached = new Map<string, string>();
  /** Readings asked for, by message id. */
  private readonly asked = new Map<number, string>();
  private lastId = 0;
  private timer: NodeJS.Timeout | undefined;

  watch(threadId: string, watch: Watch): Disposer {
    if (!this.open()) return () => {};
    this.watches.set(threadId, watch);
    return () => {
      if (this.watches.get(threadId) !== watch) return;
      this.watches.delete(threadId);
      if (this.watches.size === 0) this.close();
    };
  }

  private open(): boolean {
    if (this.session) return true;
    const inspector = loadInspector();
    if (!inspector) return false;
    try {
      const session = new inspector.Session();
      session.connect();
      session.on('NodeWorker.attachedToWorker', this.onAttached);
      session.on('NodeWorker.detachedFromWorker', this.onDetached);
      session.on('NodeWorker.receivedMessageFromWorker', this.onReply);
      session.post('NodeWorker.enable', { waitForDebuggerOnStart: false }, () => {});
      this.session = session;
    } catch {
      return false;
    }
    this.timer = setInterval(this.poll, HEAP_POLL_MS);
    this.timer.unref();
    return true;
  }

  private close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    const session = this.session;
    this.session = undefined;
    this.attached.clear();
    this.asked.clear();
    try {
      session?.post('NodeWorker.disable', () => {});
      session?.disconnect();
    } catch {}
  }

  /**
   * The inspector numbers threads per session; Node titles each `[worker THREAD_ID]`, which is
   * how an attached thread is told apart. A thread with another title is not watched.
   */
  private readonly onAttached = (message: {
    params: { sessionId: string; workerInfo: { title: string } };
  }): void => {
    const threadId = /^\[worker (\d+)\]/.exec(message.params.workerInfo.title)?.[1];
    if (threadId !== undefined) this.attached.set(threadId, message.params.sessionId);
  };

  private readonly onDetached = (message: { params: { sessionId: string } }): void => {
    for (const [threadId, sessionId] of this.attached) {
      if (sessionId === message.params.sessionId) this.attached.delete(threadId);
    }
  };

  private readonly poll = (): void => {
    const session = this.session;
    if (!session) return;
    for (const [threadId, watch] of this.watches) {
      const sessionId = this.attached.get(threadId);
      if (sessionId === undefined || watch.asking || watch.reported) continue;
      this.lastId += 1;
      this.asked.set(this.lastId, threadId);
      watch.asking = true;
      const message = JSON.stringify({ id: this.lastId, method: 'Runtime.getHeapUsage' });
      session.post('NodeWorker.sendMessageToWorker', { sessionId, message }, () => {});
    }
  };

  private readonly onReply = (message: { params: { message: string } }): void => {
    let reply: HeapReply;
    try {
      reply = JSON.parse(message.params.message) as HeapReply;
    } catch {
      return;
    }
    if (typeof reply.id !== 'number') return;
    const threadId = this.asked.get(reply.id);
    if (threadId === undefined) return;
    this.asked.delete(reply.id);
    const watch = this.watches.get(threadId);
    if (!watch) return;
    watch.asking = false;
    const used = reply.result?.usedSize;
    if (typeof used !== 'number' || used <= watch.limitBytes || watch.reported) return;
    watch.reported = true;
    watch.onExceeded(used);
  };
}

const watcher = new HeapWatcher();

/**
 * Calls `onExceeded` once, with the bytes in use, when the thread's heap is read past
 * `limitMb`. A thing that is not a real thread (a test's fake) or a host without an inspector
 * is not watched. Returns the undo; `onExceeded` must not throw.
 */
export function watchWorkerHeap(
  worker: Pick<Worker, 'threadId'>,
  limitMb: number,
  onExceeded: (usedBytes: number) => void,
): Disposer {
  if (typeof worker.threadId !== 'number') return () => {};
  return watcher.watch(String(worker.threadId), {
    limitBytes: limitMb * MEGABYTE,
    onExceeded,
    asking: false,
    reported: false,
  });
}
