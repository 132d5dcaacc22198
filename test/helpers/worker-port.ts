/**
 * A workflow script line that reaches the worker's real `parentPort`, as a script can (see
 * README.md), for tests of how the host treats forged worker messages. Test scripts only.
 */
export const REACH_PORT = `const port = log.constructor('return process')().getBuiltinModule('node:worker_threads').parentPort;`;
