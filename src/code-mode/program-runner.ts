/**
 * The host side of Code Mode's program engine: runs each program in QuickJS in a worker thread
 * (`program-session.ts`), never in this thread. Threads are kept loaded ahead: a run takes an
 * idle one and another starts warming in the background; a thread goes back to the pool after a
 * run that ended cleanly. The runner forwards the program's tool calls to the caller and their
 * answers back, and backs the thread's own limits with a terminate. `run` never rejects.
 */

import { WarmThreads } from '../quickjs/threads.js';
import type {
  ProgramOutcome,
  ProgramRequest,
  ProgramRunner,
  ProgramStop,
  ProgramToolAnswer,
} from './program-contract.js';
import { type ProgramToHost, readToolAnswer } from './program-protocol.js';
import { ProgramThread } from './program-thread.js';

export interface ProgramRunnerOptions {
  /** Idle threads kept loaded for the next runs; default 1 (0: a thread starts at each run). */
  warmThreads?: number;
  /** Idle threads kept after their runs at most; default 2. */
  maxIdleThreads?: number;
  /** How long (ms) a thread may take to stop after a timeout or an abort before it is terminated; default 1000. */
  stopGraceMs?: number;
}

const EMPTY_OUTPUT = { console: '', truncated: false };

/** How long (ms) a thread may take to start a program it was sent (loading QuickJS included). */
const START_LIMIT_MS = 30_000;

/** A runner with a warm thread starting now; `close()` ends every thread. */
export function createProgramRunner(options: ProgramRunnerOptions = {}): ProgramRunner {
  return new PooledProgramRunner(options);
}

/** Why a request cannot run, or undefined when it can. */
export function checkProgramRequest(request: ProgramRequest): string | undefined {
  if (typeof request.code !== 'string') return 'the program must be a string';
  if (
    !Array.isArray(request.toolNames) ||
    request.toolNames.some((name) => typeof name !== 'string')
  ) {
    return 'toolNames must be an array of strings';
  }
  if (typeof request.callTool !== 'function') return 'callTool must be a function';
  const limits = request.limits as unknown as Record<string, unknown> | undefined;
  if (typeof limits !== 'object' || limits === null) return 'limits must be an object';
  const { timeoutMs, memoryMb, outputBytes } = limits;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    return `limits.timeoutMs must be a positive number of milliseconds, not ${String(timeoutMs)}`;
  }
  if (typeof memoryMb !== 'number' || !Number.isFinite(memoryMb) || memoryMb <= 0) {
    return `limits.memoryMb must be a positive number of megabytes, not ${String(memoryMb)}`;
  }
  if (typeof outputBytes !== 'number' || !Number.isSafeInteger(outputBytes) || outputBytes < 0) {
    return `limits.outputBytes must be a whole number of bytes, not ${String(outputBytes)}`;
  }
  return undefined;
}

class PooledProgramRunner implements ProgramRunner {
  private readonly stopGraceMs: number;
  private readonly threads: WarmThreads<ProgramThread>;
  private readonly busy = new Map<ProgramThread, (outcome: ProgramOutcome) => void>();
  private closed = false;
  private lastRun = 0;

  constructor(options: ProgramRunnerOptions) {
    const warm = options.warmThreads ?? 1;
    this.stopGraceMs = options.stopGraceMs ?? 1000;
    this.threads = new WarmThreads(
      (forget) => new ProgramThread(forget),
      warm,
      Math.max(options.maxIdleThreads ?? 2, warm),
    );
  }

  run(request: ProgramRequest): Promise<ProgramOutcome> {
    return new Promise((resolve) => {
      try {
        this.start(request, resolve);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        resolve({
          kind: 'threw',
          message: `the program engine failed: ${reason}`,
          ...EMPTY_OUTPUT,
        });
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const busy = [...this.busy.keys()];
    for (const [thread, end] of this.busy) {
      end(stopped('aborted', 'the program runner was closed; the program was stopped'));
      this.busy.delete(thread);
    }
    await Promise.all([this.threads.close(), ...busy.map((thread) => thread.terminate())]);
  }

  private start(request: ProgramRequest, resolve: (outcome: ProgramOutcome) => void): void {
    const problem = checkProgramRequest(request);
    if (problem !== undefined) {
      resolve({ kind: 'threw', message: `run_code: ${problem}`, ...EMPTY_OUTPUT });
      return;
    }
    if (this.closed) {
      resolve({ kind: 'threw', message: 'the program runner is closed', ...EMPTY_OUTPUT });
      return;
    }
    const { signal, limits } = request;
    if (signal.aborted) {
      resolve(stopped('aborted', 'the program was cancelled before it started'));
      return;
    }
    const thread = this.threads.take();
    this.lastRun += 1;
    const run = this.lastRun;
    const toolNames = [...request.toolNames];
    let ended = false;
    let lastIndex = 0;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const end = (outcome: ProgramOutcome, reusable: boolean) => {
      if (ended) return;
      ended = true;
      clearTimeout(timeLimitTimer);
      clearTimeout(graceTimer);
      signal.removeEventListener('abort', onAbort);
      this.busy.delete(thread);
      thread.detach();
      this.threads.release(thread, reusable);
      resolve(outcome);
    };
    const fault = (reason: string) =>
      end(
        { kind: 'threw', message: `the program engine failed: ${reason}`, ...EMPTY_OUTPUT },
        false,
      );
    const answer = (index: number, result: ProgramToolAnswer) => {
      if (!ended) thread.post({ type: 'answer', run, index, answer: result });
    };
    const onCall = (call: Extract<ProgramToHost, { type: 'call' }>) => {
      if (call.index !== lastIndex + 1 || !toolNames.includes(call.name)) {
        fault(`the program thread sent a call out of order or for an unknown tool (${call.name})`);
        return;
      }
      lastIndex = call.index;
      let args: unknown;
      try {
        args = JSON.parse(call.arguments);
      } catch {
        fault('the program thread sent arguments that are not JSON text');
        return;
      }
      askHost(request, { index: call.index, name: call.name, arguments: args }).then((result) =>
        answer(call.index, result),
      );
    };
    /** The thread missed its own stop: it is terminated and the run ends `reason`. */
    const enforce = (reason: ProgramStop, message: string) =>
      end(
        stopped(reason, `${message} (the program thread did not stop in time and was terminated)`),
        false,
      );
    const onAbort = () => {
      thread.post({ type: 'stop', run });
      graceTimer ??= setTimeout(
        () => enforce('aborted', 'the program was cancelled and stopped'),
        this.stopGraceMs,
      );
    };
    // The time limit counts from the program's start in its thread (a thread still loading
    // QuickJS on a busy machine must not eat the program's time); until then, a start limit.
    let timeLimitTimer = setTimeout(
      () => fault(`the program thread did not start the program within ${START_LIMIT_MS} ms`),
      START_LIMIT_MS,
    );
    const onStarted = () => {
      clearTimeout(timeLimitTimer);
      timeLimitTimer = setTimeout(
        () =>
          enforce(
            'timeout',
            `the program ran longer than its time limit of ${limits.timeoutMs} ms and was stopped`,
          ),
        limits.timeoutMs + this.stopGraceMs,
      );
    };
    this.busy.set(thread, (outcome) => end(outcome, false));
    thread.attach({
      message: (message) => {
        if (message === undefined) fault('the program thread sent a malformed message');
        else if (message.type === 'ready' || message.run !== run) return;
        else if (message.type === 'started') onStarted();
        else if (message.type === 'call') onCall(message);
        else end(message.outcome, true);
      },
      ended: (reason) => fault(`the program thread ended while the program ran: ${reason}`),
    });
    signal.addEventListener('abort', onAbort, { once: true });
    thread.post({ type: 'run', run, code: request.code, toolNames, limits: { ...limits } });
  }
}

function stopped(reason: ProgramStop, message: string): ProgramOutcome {
  return { kind: 'stopped', reason, message, ...EMPTY_OUTPUT };
}

/** The caller's answer to one call; a rejection or a malformed answer becomes an error answer. */
async function askHost(
  request: ProgramRequest,
  call: { index: number; name: string; arguments: unknown },
): Promise<ProgramToolAnswer> {
  try {
    const result = readToolAnswer(await request.callTool(call));
    return result ?? { ok: false, message: `the tool ${call.name} gave a malformed answer` };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
