/** The workflow worker's entry: the whole session lives in worker-session.ts. Nothing else here. */
import { parentPort, workerData } from 'node:worker_threads';
import { startWorkerSession } from './worker-session.js';

// biome-ignore lint/style/noNonNullAssertion: this file only ever runs as a worker, where parentPort is set.
startWorkerSession(parentPort!, workerData);
