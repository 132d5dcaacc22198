/**
 * The run-level resource limits through the service, engine-neutral (the fixture's engine):
 * `maxScriptMemoryMb` (SCRIPT_MEMORY), `maxResultBytes` (RESULT_TOO_LARGE) and `maxRunMs`
 * (RUN_TIMEOUT). Assertions are codes, reasons and pairing, never times.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineFixture, settled } from './engine-fixture.js';

const answerFirst = (request: { prompt: string }) =>
  request.prompt === 'first' || request.prompt === 'other' ? { output: 'ok' } : undefined;

test('a memory bomb after an await ends SCRIPT_MEMORY; children are cancelled and other runs go on', async () => {
  const fixture = engineFixture({ respond: answerFirst, limits: { maxScriptMemoryMb: 64 } });
  const bomb = fixture.start(`
    const held = agent('held');
    await agent('first');
    const hoard = [];
    for (;;) hoard.push({ n: Math.random(), text: 'x' + Math.random() });
  `);
  const other = fixture.start(`
    const answer = await agent('other');
    return 'still here: ' + answer;
  `);
  const result = await settled(fixture, bomb);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'SCRIPT_MEMORY', result.error?.message);
  assert.match(result.error?.message ?? '', /memory limit of 64 MB \(maxScriptMemoryMb\)/);
  const held = await fixture.fake.child(/^held$/);
  assert.match(held.cancelledBy ?? '', /maxScriptMemoryMb/);
  assert.deepEqual(
    result.agents.map((agent) => agent.outcome),
    ['cancelled', 'completed'],
  );
  const otherResult = await settled(fixture, other);
  assert.equal(otherResult.stopReason, 'completed');
  assert.equal(otherResult.value, 'still here: ok');
  // The service still starts runs afterwards.
  const after = await settled(fixture, fixture.start('return [1, 2, 3].length'));
  assert.equal(after.value, 3);
});

test('large allocations past the memory limit end SCRIPT_MEMORY', async () => {
  const fixture = engineFixture({ limits: { maxScriptMemoryMb: 32 } });
  const run = fixture.start(`
    await null;
    const chunks = [];
    for (;;) chunks.push(new Array(1024 * 1024).fill(1.5));
  `);
  const result = await settled(fixture, run);
  assert.equal(result.error?.code, 'SCRIPT_MEMORY', result.error?.message);
});

test('a 10-million-element return ends RESULT_TOO_LARGE, naming maxResultBytes', async () => {
  // Memory enough for any engine to build the array: the return value's size is what is tested.
  const fixture = engineFixture({ respond: answerFirst, limits: { maxScriptMemoryMb: 1024 } });
  const run = fixture.start(`
    await agent('first');
    return Array.from({ length: 10000000 }, (_, index) => index);
  `);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'RESULT_TOO_LARGE', result.error?.message);
  assert.match(result.error?.message ?? '', /16777216 bytes/);
  assert.match(result.error?.message ?? '', /maxResultBytes/);
  assert.equal(result.value, null);
});

test('maxResultBytes is the JSON size: a value of exactly the limit returns, one byte more does not', async () => {
  const fixture = engineFixture({ limits: { maxResultBytes: 1024 } });
  // JSON of {"items":[…]} made of plain ASCII strings: `{"items":[` + items + `]}`.
  const script = (last: number) => `
    const items = Array.from({ length: 20 }, (_, index) => 'item-' + 'x'.repeat(40) + index);
    items.push('y'.repeat(${last}));
    return { items };
  `;
  const base = Buffer.byteLength(
    JSON.stringify({
      items: [...Array.from({ length: 20 }, (_, index) => `item-${'x'.repeat(40)}${index}`), ''],
    }),
  );
  const fits = 1024 - base;
  const exact = await settled(fixture, fixture.start(script(fits)));
  assert.equal(exact.stopReason, 'completed', exact.error?.message);
  assert.equal(Buffer.byteLength(JSON.stringify(exact.value)), 1024);
  const over = await settled(fixture, fixture.start(script(fits + 1)));
  assert.equal(over.error?.code, 'RESULT_TOO_LARGE', over.error?.message);
  assert.match(over.error?.message ?? '', /1024 bytes/);
});

test('maxRunMs ends a run whose children hang with RUN_TIMEOUT; each child is cancelled naming it', async (t) => {
  // The run's clock is mocked: it passes only once both children are running, however slow the
  // machine is to start them.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const fixture = engineFixture({ limits: { maxRunMs: 300 } });
  const run = fixture.start(`
    phase('hang');
    const results = await parallel([() => agent('a'), () => agent('b')]);
    return results;
  `);
  await fixture.fake.started(2);
  t.mock.timers.tick(300);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'RUN_TIMEOUT', result.error?.message);
  assert.match(result.error?.message ?? '', /time limit of 300 ms \(maxRunMs\)/);
  assert.equal(fixture.fake.children.length, 2);
  for (const child of fixture.fake.children) {
    assert.match(child.cancelledBy ?? '', /maxRunMs/, child.request.prompt);
  }
  assert.deepEqual(
    result.agents.map((agent) => agent.outcome),
    ['cancelled', 'cancelled'],
  );
});

test('maxRunMs stops a script that spins after an await', async () => {
  const fixture = engineFixture({ respond: answerFirst, limits: { maxRunMs: 300 } });
  const result = await settled(
    fixture,
    fixture.start(`
      await agent('first');
      for (;;) {}
    `),
  );
  assert.equal(result.error?.code, 'RUN_TIMEOUT', result.error?.message);
});
