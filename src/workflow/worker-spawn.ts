/**
 * Starts the thread a workflow run's script lives in. The bundled package (dist/bundle) runs
 * `worker.cjs` next to this file: one CommonJS file, so the thread starts without an ESM loader;
 * the unbundled build runs `worker.js` next to this file. Under tsx (Loom's own tests) the
 * source is TypeScript and Node 20 does not give worker threads the main thread's module hooks,
 * so the worker first registers tsx itself. The worker gets no Node flags (`execArgv: []`): it
 * needs none, and a host started with flags a worker refuses (`--eval`, `--input-type`) must
 * still run workflows. It must never start anything but the workflow worker entry.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { WorkerSessionData } from './protocol.js';

export function spawnWorkflowWorker(data: WorkerSessionData): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    const bundled = new URL('./worker.cjs', import.meta.url);
    const entry = existsSync(bundled) ? bundled : new URL('./worker.js', import.meta.url);
    return new Worker(entry, { workerData: data, execArgv: [] });
  }
  const loader = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(loader)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data, execArgv: [] });
}
