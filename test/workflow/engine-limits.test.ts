import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import { defaultLimits, resolveLimits } from '../../src/workflow/limits.js';

test('the defaults match the spec: 8 slots on every machine, whatever its cores', () => {
  const limits = defaultLimits();
  assert.deepEqual(limits, {
    maxConcurrentAgents: 8,
    maxTotalAgents: 1000,
    maxItemsPerCall: 4096,
    syncTimeoutMs: 5000,
    cancelGraceMs: 5000,
    maxScriptMemoryMb: 256,
    maxResultBytes: 16 * 1024 * 1024,
    stallMs: 300_000,
  });
  assert.equal(limits.maxRunMs, undefined, 'no run time limit by default');
});

test('given fields override the base; undefined counts as not given', () => {
  const base = defaultLimits();
  assert.deepEqual(resolveLimits(undefined, base), base);
  assert.deepEqual(resolveLimits({ maxConcurrentAgents: 256, syncTimeoutMs: undefined }, base), {
    ...base,
    maxConcurrentAgents: 256,
  });
  const service = resolveLimits({ cancelGraceMs: 100 });
  assert.deepEqual(resolveLimits({ maxTotalAgents: 3 }, service), {
    ...service,
    maxTotalAgents: 3,
  });
});

test('bad and unknown fields are INVALID_ARGUMENT naming the field', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ maxConcurrentAgents: 0 }, /maxConcurrentAgents must be an integer from 1 to 256, not 0/],
    [{ maxConcurrentAgents: 257 }, /maxConcurrentAgents/],
    [{ maxTotalAgents: 1.5 }, /maxTotalAgents/],
    [{ maxItemsPerCall: '10' }, /maxItemsPerCall .* not 10/],
    [{ syncTimeoutMs: -1 }, /syncTimeoutMs/],
    [{ cancelGraceMs: Number.NaN }, /cancelGraceMs/],
    [{ timeoutMs: 5 }, /unknown workflow limit timeoutMs/],
    [[1], /must be an object/],
  ];
  for (const [partial, pattern] of cases) {
    assert.throws(
      () => resolveLimits(partial as never),
      (error: unknown) =>
        error instanceof WorkflowError &&
        error.code === 'INVALID_ARGUMENT' &&
        pattern.test(error.message),
      String(pattern),
    );
  }
});
