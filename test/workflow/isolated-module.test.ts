/**
 * An isolated session instantiates the QuickJS module its host handed it (`quickJs` in the session
 * data), so every thread of a process shares the code V8 optimizes for it. Alone in its file: a
 * thread instantiates QuickJS once, and this session's is not QuickJS at all.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { startIsolatedSession } from '../../src/workflow/isolated/isolated-session.js';
import { defaultLimits } from '../../src/workflow/limits.js';
import {
  type DoneOutcome,
  HostMessage,
  sendToWorker,
  WorkerMessage,
} from '../../src/workflow/protocol.js';
import { readWorkerMessage } from '../../src/workflow/wire-check.js';
import { deferred, testMeta } from './engine-fixture.js';

/** The smallest valid WebAssembly module: it compiles, and has none of QuickJS's exports. */
const EMPTY_MODULE = new (
  globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } }
).WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));

test('an isolated session runs on the compiled module its host handed it, not on its own', async () => {
  const { port1: host, port2: worker } = new MessageChannel();
  const done = deferred<DoneOutcome>();
  host.on('message', (raw) => {
    const reading = readWorkerMessage(raw);
    assert.ok('message' in reading, JSON.stringify(reading));
    if (reading.message.tag === WorkerMessage.Ready) sendToWorker(host, HostMessage.Go, {});
    if (reading.message.tag === WorkerMessage.Done) {
      done.resolve(reading.message.payload);
      host.close();
    }
  });
  startIsolatedSession(Object.assign(worker, { receive: () => receiveMessageOnPort(worker) }), {
    script: 'return 1;',
    args: {},
    limits: defaultLimits(),
    meta: testMeta,
    budgetTotal: null,
    quickJs: EMPTY_MODULE,
  });
  const outcome = await done.promise;
  assert.equal(outcome.kind, 'error', JSON.stringify(outcome));
  assert.match(
    outcome.kind === 'error' ? outcome.message : '',
    /^the isolated workflow engine could not load QuickJS: /,
  );
});
