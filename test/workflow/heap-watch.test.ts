import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { canWatchHeaps, heapCapMb, watchWorkerHeap } from '../../src/workflow/heap-watch.js';

/** A thread that allocates without end; V8 would stop it only at 512 MB. */
function bombThread(): Worker {
  return new Worker('const hoard = []; for (;;) hoard.push({ n: Math.random() });', {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
}

/** Resolves with the bytes the watch reported; rejects if the thread ended any other way. */
function watched(worker: Worker, limitMb: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const stop = watchWorkerHeap(worker, limitMb, (usedBytes) => {
      stop();
      worker.terminate().then(() => resolve(usedBytes), reject);
    });
    worker.on('error', (error) => {
      stop();
      reject(error);
    });
  });
}

test('the heap watch reports a thread past its limit, for threads watched one after another and side by side', async () => {
  assert.ok(canWatchHeaps(), 'this Node has an inspector');
  for (const limitMb of [32, 48]) {
    const used = await watched(bombThread(), limitMb);
    assert.ok(used > limitMb * 1024 * 1024, `${used} bytes reported over ${limitMb} MB`);
  }
  const side = await Promise.all([watched(bombThread(), 40), watched(bombThread(), 64)]);
  assert.ok((side[0] ?? 0) > 40 * 1024 * 1024);
  assert.ok((side[1] ?? 0) > 64 * 1024 * 1024);
});

test("a thread started before the watch opened is watched too (a prewarmed run's)", async () => {
  const early = bombThread();
  await new Promise((resolve) => early.once('online', resolve));
  const used = await watched(early, 32);
  assert.ok(used > 32 * 1024 * 1024);
});

test("V8's limit is the backstop: twice the script's limit (64 MB more at least) when watched", () => {
  assert.equal(heapCapMb(16), 80);
  assert.equal(heapCapMb(256), 512);
});
