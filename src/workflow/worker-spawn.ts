/**
 * Starts the thread a workflow run's script lives in. The build runs `worker.cjs` next to this
 * file (the bundle and tsc's unbundled engine alike): one CommonJS file, so the thread starts
 * without an ESM loader; without it, `worker.js` next to this file. Under tsx (Loom's own tests) the
 * source is TypeScript and Node 20 does not give worker threads the main thread's module hooks,
 * so the worker first registers tsx itself. The worker gets no Node flags (`execArgv: []`): it
 * needs none, and a host started with flags a worker refuses (`--eval`, `--input-type`) must
 * still run workflows. A thread started ahead (`prewarmWorkflowWorker`) serves the next run of
 * its engine: its session data arrives as its first message. The isolated engine's entry is
 * `isolated-worker.cjs` (under tsx `isolated/worker.ts`). Every thread gets V8's heap limit for
 * its run's `maxScriptMemoryMb` (`heapCapMb`); one started ahead serves only a run of its engine
 * and limit. An isolated thread gets the QuickJS this process compiled and keeps
 * (`core/quickjs-wasm.ts`). It must never start anything but a workflow worker entry.
 */
import { existsSync } from 'node:fs';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { quickJsWasmForThreads } from '../quickjs/wasm.js';
import type { WorkflowEngineKind } from './contract.js';
import { heapCapMb } from './heap-watch.js';
import { defaultLimits } from './limits.js';
import type { WorkerSessionData } from './protocol.js';

/** The engine a run gets when neither the caller nor the config names one (see README.md). */
export const DEFAULT_WORKFLOW_ENGINE: WorkflowEngineKind = 'worker';

function builtEntry(engine: WorkflowEngineKind): URL {
  if (engine === 'isolated') {
    const bundled = new URL('./isolated-worker.cjs', import.meta.url);
    return existsSync(bundled) ? bundled : new URL('./isolated/worker.js', import.meta.url);
  }
  const bundled = new URL('./worker.cjs', import.meta.url);
  return existsSync(bundled) ? bundled : new URL('./worker.js', import.meta.url);
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
  const worker = new Worker(builtEntry(engine), {
    workerData: null,
    execArgv: [],
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
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(builtEntry(engine), { workerData: data, execArgv: [], resourceLimits });
  }
  const loader = import.meta.resolve('tsx/esm/api');
  const entry = new URL(
    engine === 'isolated' ? './isolated/worker.ts' : './worker.ts',
    import.meta.url,
  ).href;
  const bootstrap = `import(${JSON.stringify(loader)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data, execArgv: [], resourceLimits });
}
