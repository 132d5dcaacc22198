/**
 * Starts the thread a workflow run's script lives in, through `quickjs/threads.ts` (the built
 * `worker.cjs` or `isolated-worker.cjs` beside this file, else tsc's `.js`, else the source under
 * tsx; no Node flags). A thread started ahead (`prewarmWorkflowWorker`) serves the next run of
 * its engine and `maxScriptMemoryMb`: its session data arrives as its first message. Every thread
 * gets V8's heap limit for its run's limit (`heapCapMb`); an isolated one also gets the QuickJS
 * this process compiled and keeps. It must never start anything but a workflow worker entry.
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { startThread, threadEntry } from '../quickjs/threads.js';
import { quickJsWasmForThreads } from '../quickjs/wasm.js';
import type { WorkflowEngineKind } from './contract.js';
import { heapCapMb } from './heap-watch.js';
import { defaultLimits } from './limits.js';
import type { WorkerSessionData } from './protocol.js';

/** The engine a run gets when neither the caller nor the config names one (see README.md). */
export const DEFAULT_WORKFLOW_ENGINE: WorkflowEngineKind = 'worker';

function entry(engine: WorkflowEngineKind): URL {
  return engine === 'isolated'
    ? threadEntry(import.meta.url, './isolated/worker.ts', './isolated-worker.cjs')
    : threadEntry(import.meta.url, './worker.ts', './worker.cjs');
}

/** V8's limits for a thread whose script may use `maxScriptMemoryMb`. */
function resourceLimitsFor(maxScriptMemoryMb: number): ResourceLimits {
  return { maxOldGenerationSizeMb: heapCapMb(maxScriptMemoryMb) };
}

let prewarmed: { worker: Worker; engine: WorkflowEngineKind; memoryMb: number } | undefined;

/**
 * Starts a worker thread for the next run now, so that its start overlaps the caller's own
 * work (a command that will run a workflow): on the run's engine, with V8's heap limit for the
 * run's `maxScriptMemoryMb` (a run with another limit gets a thread of its own). It never keeps
 * the process alive by itself; one that fails or exits before it is used is replaced by a fresh
 * thread. Built engine only.
 */
export function prewarmWorkflowWorker(
  engine: WorkflowEngineKind = DEFAULT_WORKFLOW_ENGINE,
  memoryMb = defaultLimits().maxScriptMemoryMb,
): void {
  if (prewarmed || import.meta.url.endsWith('.ts')) return;
  const worker = startThread(entry(engine), {
    workerData: null,
    resourceLimits: resourceLimitsFor(memoryMb),
  });
  const forget = () => {
    if (prewarmed?.worker === worker) prewarmed = undefined;
  };
  worker.on('error', forget);
  worker.on('exit', forget);
  worker.unref();
  prewarmed = { worker, engine, memoryMb };
}

export function spawnWorkflowWorker(
  data: WorkerSessionData,
  engine: WorkflowEngineKind = DEFAULT_WORKFLOW_ENGINE,
): Worker {
  if (engine === 'isolated') data = { ...data, quickJs: quickJsWasmForThreads() };
  const ready = prewarmed;
  const resourceLimits = resourceLimitsFor(data.limits.maxScriptMemoryMb);
  if (ready && ready.engine === engine && data.limits.maxScriptMemoryMb === ready.memoryMb) {
    ready.worker.postMessage(data);
    prewarmed = undefined;
    ready.worker.ref();
    return ready.worker;
  }
  return startThread(entry(engine), { workerData: data, resourceLimits });
}
