/** The isolated engine's worker entry: the whole session lives in isolated-session.ts. Nothing else here. */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { startIsolatedSession } from './isolated-session.js';

// biome-ignore lint/style/noNonNullAssertion: this file only ever runs as a worker, where parentPort is set.
const port = parentPort!;
startIsolatedSession(
  Object.assign(port, { receive: () => receiveMessageOnPort(port) }),
  workerData,
);
