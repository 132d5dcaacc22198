/**
 * What only the isolated engine does: its interrupt handler stops a spin after an await on cancel
 * (the worker sends its own `done`, long before the grace would end in a terminate), its memory
 * limit ends a bomb with SCRIPT_MEMORY, and a return value larger than maxResultBytes ends with
 * RESULT_TOO_LARGE before it is copied. The engine tests (engine*.test.ts) run on it too.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { WorkerWorkflowService } from '../../src/workflow/host.js';
import { DEFAULT_WORKFLOW_ENGINE } from '../../src/workflow/worker-spawn.js';
import { echoPrompt, engineFixture, settled } from './engine-fixture.js';

const isolated = { engine: 'isolated' } as const;

test('a spin after an await is stopped by the interrupt handler on cancel, well inside the grace', async () => {
  const fixture = engineFixture({
    // A grace this long would fail the test by its timeout if only a terminate ended the spin.
    limits: { cancelGraceMs: 120_000 },
    respond: (request) => (request.prompt === 'quick' ? echoPrompt(request) : undefined),
    service: isolated,
  });
  const run = fixture.start(`
    const held = agent('held');
    await agent('quick');
    log('spinning');
    try { while (true) {} } catch (error) { log('caught ' + error); }
    finally { log('finally'); }`);
  await fixture.events.waitFor((record) => record.type === 'workflow/log');
  const held = await fixture.fake.child(/held/);
  const cancelled = performance.now();
  run.cancel('the user pressed stop');
  const result = await settled(fixture, run);
  const elapsed = performance.now() - cancelled;
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(result.error?.code, 'CANCELLED');
  assert.match(result.error?.message ?? '', /the user pressed stop/);
  assert.deepEqual([...held.cancelledVia].sort(), ['cancel', 'signal']);
  assert.deepEqual(
    fixture.events.of('workflow/log').map((event) => event.message),
    ['spinning'],
    'the interrupt cannot be caught, and no finally runs',
  );
  assert.ok(elapsed < 60_000, `settled ${elapsed.toFixed(0)} ms after cancel, not at the grace`);
});

test('a spin after a cancel the script caught is stopped too', async () => {
  const fixture = engineFixture({
    limits: { cancelGraceMs: 120_000, syncTimeoutMs: 200 },
    service: isolated,
  });
  const run = fixture.start(`
    try { await agent('held'); } catch (error) { log(error.code); while (true) {} }`);
  await fixture.fake.child(/held/);
  run.cancel('stop');
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(result.error?.code, 'CANCELLED');
});

test('a memory bomb after an await ends with SCRIPT_MEMORY, children cancelled and paired', async () => {
  const fixture = engineFixture({
    limits: { maxScriptMemoryMb: 32 },
    respond: (request) => (request.prompt === 'quick' ? echoPrompt(request) : undefined),
    service: isolated,
  });
  const started = performance.now();
  const run = fixture.start(`
    const held = agent('held');
    await agent('quick');
    const hoard = [];
    while (true) hoard.push(new Array(100000).fill(hoard.length));`);
  const result = await settled(fixture, run);
  const elapsed = performance.now() - started;
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'SCRIPT_MEMORY', result.error?.message);
  assert.match(
    result.error?.message ?? '',
    /more than its memory limit of 32 MB \(maxScriptMemoryMb\)/,
  );
  const held = fixture.events.of('workflow/agent-end').find((event) => event.label === 'held');
  assert.equal(held?.outcome, 'cancelled');
  process.stdout.write(`# isolated memory bomb (32 MB) ended in ${elapsed.toFixed(0)} ms\n`);
});

test('a memory bomb the script catches still ends the run with SCRIPT_MEMORY', async () => {
  const fixture = engineFixture({ limits: { maxScriptMemoryMb: 16 }, service: isolated });
  const result = await settled(
    fixture,
    fixture.start(`
      let caught = '';
      try { const hoard = []; while (true) hoard.push(new Array(100000).fill(hoard.length)); }
      catch (error) { caught = error.message; }
      log('survived: ' + caught);
      return caught;`),
  );
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'SCRIPT_MEMORY', result.error?.message);
  assert.deepEqual(fixture.events.of('workflow/log'), []);
});

test('a 10-million-element return ends with RESULT_TOO_LARGE before it is copied', async () => {
  const fixture = engineFixture({ service: isolated });
  const started = performance.now();
  const result = await settled(fixture, fixture.start('return new Array(10_000_000).fill(0);'));
  const elapsed = performance.now() - started;
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'RESULT_TOO_LARGE', result.error?.message);
  assert.match(result.error?.message ?? '', /larger than 16777216 bytes \(maxResultBytes\)/);
  process.stdout.write(`# isolated 10M-element return ended in ${elapsed.toFixed(0)} ms\n`);

  const limits = { maxResultBytes: 1024 };
  const small = engineFixture({ limits, service: isolated });
  const fits = await settled(small, small.start("return 'é'.repeat(500);"));
  assert.equal(fits.stopReason, 'completed', 'a 1002-byte string fits in 1024');
  const over = await settled(small, small.start("return { text: 'é'.repeat(600) };"));
  assert.equal(over.error?.code, 'RESULT_TOO_LARGE', 'UTF-8 bytes count, not characters');
  const nested = await settled(
    small,
    small.start("return [{ a: 'x'.repeat(600) }, { b: 'y'.repeat(600) }];"),
  );
  assert.equal(nested.error?.code, 'RESULT_TOO_LARGE');
});

test('both engines refuse the same option values with the same messages', async () => {
  const cases = [
    `agent('x', { label: () => 1 })`,
    `agent('x', new Map())`,
    // Not a literal: the start-time check leaves it to the call.
    `agent('x', Object.assign({}, { bogus: 1, schema: { f() {} } }))`,
    `agent('x', { schema: { type: 'object', f: () => 1 } })`,
    `agent('x', { schema: { when: new Date(0) } })`,
    `agent('x', { model: NaN })`,
    `agent(10n)`,
    `phase(Symbol('s'))`,
    `log(undefined)`,
    `parallel([1])`,
    `pipeline([1])`,
    `workflow('', {})`,
    `workflow('./x.js', { f: () => 1 })`,
  ];
  for (const call of cases) {
    const messages: Array<string | undefined> = [];
    for (const engine of ['worker', 'isolated'] as const) {
      const fixture = engineFixture({ respond: echoPrompt, service: { engine } });
      const result = await settled(fixture, fixture.start(`${call};`));
      assert.equal(result.stopReason, 'error', `${engine}: ${call}`);
      messages.push(`${result.error?.code}: ${result.error?.message}`);
    }
    assert.equal(messages[1], messages[0], call);
  }
});

test('the worker engine stays the default: the isolated engine costs more than twice as much (README)', () => {
  assert.equal(DEFAULT_WORKFLOW_ENGINE, 'worker');
  assert.ok(WorkerWorkflowService);
});
