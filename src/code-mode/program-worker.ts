/** The program thread's entry: the whole engine lives in program-session.ts. Nothing else here. */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { serveProgramThread } from './program-session.js';

// biome-ignore lint/style/noNonNullAssertion: this file only ever runs as a worker, where parentPort is set.
const port = parentPort!;
serveProgramThread(
  {
    post: (message) => port.postMessage(message),
    receive: () => receiveMessageOnPort(port),
    onMessage: (listener) => port.on('message', listener),
  },
  (workerData as { quickJs?: object } | undefined)?.quickJs,
);
