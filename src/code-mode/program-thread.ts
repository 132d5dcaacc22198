/**
 * One program thread as the host holds it: the worker, whether it has QuickJS loaded, and the
 * run it serves now. It runs `program-worker.ts` (`quickjs/threads.ts` finds the built entry) with
 * the QuickJS this process compiled, and never keeps the process alive while idle.
 */

import { startThread, threadEntry } from '../quickjs/threads.js';
import { quickJsWasmForThreads } from '../quickjs/wasm.js';
import { type HostToProgram, type ProgramToHost, readProgramMessage } from './program-protocol.js';

/** What the run a thread serves hears from it. */
export interface ThreadListener {
  message(message: ProgramToHost | undefined): void;
  /** The thread ended or failed; `reason` says how. */
  ended(reason: string): void;
}

/** The file a program thread runs: the bundled entry when built, else tsc's, else (tsx) the source. */
export function programWorkerEntry(): URL {
  return threadEntry(import.meta.url, './program-worker.ts', './program-worker.cjs');
}

export class ProgramThread {
  private readonly worker = startThread(programWorkerEntry(), {
    workerData: { quickJs: quickJsWasmForThreads() },
  });
  /** Whether the thread has posted `ready` (QuickJS loaded, a realm prepared). */
  ready = false;
  alive = true;
  private listener: ThreadListener | undefined;

  constructor(private readonly onEnded: (thread: ProgramThread) => void) {
    this.worker.on('message', (raw: unknown) => {
      const message = readProgramMessage(raw);
      if (message?.type === 'ready') {
        this.ready = true;
        return;
      }
      this.listener?.message(message);
    });
    this.worker.on('error', (error) => this.end(`it failed: ${error.name}: ${error.message}`));
    this.worker.on('exit', (code) => this.end(`it exited with code ${code}`));
    // After the listeners: adding a 'message' listener refs the thread's port again.
    this.worker.unref();
  }

  /** Serves `listener` until `detach`; the thread keeps the process alive meanwhile. */
  attach(listener: ThreadListener): void {
    this.listener = listener;
    this.worker.ref();
  }

  detach(): void {
    this.listener = undefined;
    this.worker.unref();
  }

  post(message: HostToProgram): void {
    if (this.alive) this.worker.postMessage(message);
  }

  async terminate(): Promise<void> {
    this.alive = false;
    await this.worker.terminate();
  }

  private end(reason: string): void {
    if (!this.alive && this.listener === undefined) return;
    this.alive = false;
    const listener = this.listener;
    this.listener = undefined;
    listener?.ended(reason);
    this.onEnded(this);
  }
}
