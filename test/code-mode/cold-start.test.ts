/**
 * A program's time limit counts from its start in the thread, not from when the host sent it: a
 * thread that is still starting (loading QuickJS, warming up) on a busy machine must not eat the
 * program's time, nor make the host terminate a thread that would have stopped on its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProgramRunner } from '../../src/code-mode/program-runner.js';

test('a program on a thread that is still starting gets its whole time limit and stops itself', async (t) => {
  // No warm thread: this run's thread starts now, and takes longer than the limit and grace.
  const runner = createProgramRunner({ warmThreads: 0, stopGraceMs: 200 });
  t.after(() => runner.close());
  const started = performance.now();
  const outcome = await runner.run({
    code: "console.log('before');\nwhile (true) {}",
    toolNames: [],
    callTool: async () => ({ ok: true, text: '' }),
    limits: { timeoutMs: 100, memoryMb: 32, outputBytes: 1000 },
    signal: new AbortController().signal,
  });
  assert.deepEqual(outcome, {
    kind: 'stopped',
    reason: 'timeout',
    message: 'the program ran longer than its time limit of 100 ms and was stopped',
    console: 'before\n',
    truncated: false,
  });
  t.diagnostic(`the cold run took ${Math.round(performance.now() - started)} ms`);
});
