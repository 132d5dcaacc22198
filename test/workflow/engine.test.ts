import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SubagentError } from '../../src/subagent/contract.js';
import { WorkflowError } from '../../src/workflow/contract.js';
import {
  echoPrompt,
  engineFixture,
  pairViolations,
  settled,
  testEngine,
  testMeta,
} from './engine-fixture.js';

function assertThrowsCode(action: () => unknown, code: string, pattern?: RegExp) {
  assert.throws(action, (error: unknown) => {
    assert.ok(error instanceof WorkflowError, String(error));
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

test('start throws synchronously for a run that cannot begin, and starts nothing', () => {
  const fixture = engineFixture();
  const parent = { sessionId: null, delegationDepth: 0 };
  assertThrowsCode(
    () => fixture.service.start({ meta: { name: 'x' } as never, script: 'return 1', parent }),
    'META_INVALID',
    /description/,
  );
  assertThrowsCode(() => fixture.start('return (;'), 'SCRIPT_PARSE', /1:9/);
  assertThrowsCode(
    () => fixture.start("export const meta = { name: 'x' };\nreturn 1;"),
    'SCRIPT_PARSE',
    /meta is data, not code/,
  );
  assertThrowsCode(
    () => fixture.start('return 1', { limits: { maxConcurrentAgents: 0 } }),
    'INVALID_ARGUMENT',
    /maxConcurrentAgents/,
  );
  assertThrowsCode(
    () => fixture.start('return 1', { args: [1, 2] as never }),
    'INVALID_ARGUMENT',
    /args must be a JSON object/,
  );
  assertThrowsCode(
    () =>
      fixture.start('return 1', {
        args: { deep: JSON.parse(`${'['.repeat(4000)}${']'.repeat(4000)}`) },
      }),
    'INVALID_ARGUMENT',
    /args are nested more than 256 levels deep/,
  );
  assertThrowsCode(
    () => fixture.start('return 1', { args: { callback: () => 1 } }),
    'INVALID_ARGUMENT',
    /args cannot be copied/,
  );
  assert.deepEqual(fixture.events.records, []);
  assert.equal(fixture.service.liveWorkers, 0);
});

test('a run sums the cache tokens of its agents too', async () => {
  const fixture = engineFixture({
    respond: () => ({
      output: 'x',
      usage: { input: 10, output: 2, cachedInput: 6, cacheWrite: 3 },
    }),
  });
  const run = fixture.start(`await agent('one'); await agent('two'); return 1;`);
  const result = await settled(fixture, run);
  assert.deepEqual(result.usage, { input: 20, output: 4, cachedInput: 12, cacheWrite: 6 });
});

test('a completed run returns the value, sums usage and brackets every agent', async () => {
  const fixture = engineFixture({
    respond: (request) => ({ output: `<${request.prompt}>`, usage: { input: 10, output: 2 } }),
  });
  const run = fixture.start(
    `phase('Gather');
     log('starting');
     const [a, b] = await parallel([() => agent('one'), () => agent('two', { label: 'second' })]);
     return { a, b, n: args.n };`,
    { args: { n: 3 }, meta: { ...testMeta, phases: [{ title: 'Gather' }] } },
  );
  const result = await settled(fixture, run);
  assert.equal(result.runId, run.id);
  assert.equal(result.name, 'test');
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, { a: '<one>', b: '<two>', n: 3 });
  assert.equal(result.error, undefined);
  assert.equal(result.agentsStarted, 2);
  assert.deepEqual(result.failures, []);
  assert.deepEqual(result.usage, { input: 20, output: 4 });
  assert.deepEqual(
    fixture.events.records.slice(0, 3).map((record) => record.type),
    ['workflow/start', 'workflow/phase', 'workflow/log'],
  );
  assert.equal(fixture.events.of('workflow/agent-end').length, 2);
  const [start] = fixture.events.of('workflow/start');
  assert.deepEqual(
    { name: start?.name, phases: start?.phases, runId: start?.runId },
    { name: 'test', phases: ['Gather'], runId: run.id },
  );
  const agentStarts = fixture.events.of('workflow/agent-start');
  assert.deepEqual(
    agentStarts.map((event) => [event.seq, event.label, event.phase]),
    [
      [1, 'one', 'Gather'],
      [2, 'second', 'Gather'],
    ],
  );
  const [end] = fixture.events.of('workflow/end');
  assert.ok(end && !('value' in end), 'workflow/end carries no value');
  assert.deepEqual(
    { stopReason: end?.stopReason, agentsStarted: end?.agentsStarted },
    { stopReason: 'completed', agentsStarted: 2 },
  );
});

test('a script may declare and assign the names of the hooks and builtins as its own', async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  const run = fixture.start(
    `const first = await agent('one');
     const JSON = { stringify: () => 'own stringify' };
     function log() { return 'own log'; }
     let parallel = 'own parallel';
     args = { replaced: true };
     Math = { max: () => 'own max' };
     return [first, JSON.stringify(1), log(), parallel, args.replaced, Math.max(1, 2)];`,
    { args: { replaced: false } },
  );
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, [
    '<one>',
    'own stringify',
    'own log',
    'own parallel',
    true,
    'own max',
  ]);
});

test('children get the prompt, label, contract text, run signal, parent, their explicit model or the run model as default', async () => {
  const fixture = engineFixture({
    respond: (request) =>
      request.outputSchema
        ? { output: '{"ok":true}', structured: { ok: true } }
        : echoPrompt(request),
    // Configured routes: a script may name them as models.
    service: { modelRoutes: ['own-model', 'phase-model'] },
  });
  const parent = { sessionId: 'parent-session', delegationDepth: 1 };
  const run = fixture.start(
    `phase('Draft');
     const plain = await agent('a');
     const own = await agent('b', { model: 'own-model' });
     const other = await agent('c', { phase: 'Other', schema: { type: 'object' } });
     return [plain, own, other];`,
    {
      parent,
      model: 'run-model',
      meta: { ...testMeta, phases: [{ title: 'Draft', model: 'phase-model' }] },
    },
  );
  const result = await settled(fixture, run);
  assert.deepEqual(result.value, ['<a>', '<b>', { ok: true }]);
  const requests = fixture.fake.children.map((child) => child.request);
  assert.deepEqual(
    requests.map((request) => [
      request.prompt,
      request.description,
      request.model,
      request.defaultModel,
    ]),
    [
      ['a', 'a', 'phase-model', undefined],
      ['b', 'b', 'own-model', undefined],
      ['c', 'c', undefined, 'run-model'],
    ],
    "the run's model is the default of a child naming none, not an explicit model",
  );
  assert.deepEqual(requests[0]?.parent, parent);
  assert.match(requests[0]?.instructions ?? '', /returned verbatim to the script as a string/);
  assert.match(requests[2]?.instructions ?? '', /structured_output tool exactly once/);
  assert.deepEqual(requests[2]?.outputSchema, { type: 'object' });
  assert.equal(requests[0]?.outputSchema, undefined);
  assert.ok(requests.every((request) => request.signal === requests[0]?.signal));
  assert.deepEqual(
    fixture.events.of('workflow/agent-start').map((event) => [event.phase, event.model]),
    [
      ['Draft', 'phase-model'],
      ['Draft', 'own-model'],
      ['Other', 'run-model'],
    ],
  );
  assert.ok(fixture.fake.children.every((child) => child.disposed));
});

test('the result never rejects: thrown values and fatal errors settle as error', async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  const thrown = await settled(fixture, fixture.start(`throw new Error('script bug');`));
  assert.equal(thrown.stopReason, 'error');
  assert.equal(thrown.value, null);
  assert.equal(thrown.error?.code, 'SCRIPT_ERROR');
  assert.match(thrown.error?.message ?? '', /script bug/);
  // Not written literally, so only the call itself can refuse it.
  const fatal = await fixture.start(`await agent('x', JSON.parse('{"efort": "max"}'));`).result;
  assert.equal(fatal.stopReason, 'error');
  assert.equal(fatal.error?.code, 'UNSUPPORTED_OPTION');
  const unserializable = await fixture.start(`return new Map();`).result;
  assert.equal(unserializable.error?.code, 'RESULT_UNSERIALIZABLE');
  const [end] = fixture.events.of('workflow/end');
  assert.deepEqual(end?.error, thrown.error);
});

test('AGENT_CAP is fatal once the run has asked for maxTotalAgents children', async () => {
  const fixture = engineFixture({ respond: echoPrompt, limits: { maxTotalAgents: 2 } });
  const run = fixture.start(`return await parallel(['a', 'b', 'c'].map((p) => () => agent(p)));`);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'AGENT_CAP');
  assert.match(result.error?.message ?? '', /limit is 2 \(maxTotalAgents\)/);
  assert.equal(result.agentsStarted, 2);
});

test('concurrency slots are first in, first out', async () => {
  const fixture = engineFixture({ limits: { maxConcurrentAgents: 2 } });
  const run = fixture.start(`
    const all = parallel(['a1', 'a2', 'a3'].map((p) => () => agent(p)));
    log('requested');
    return await all;`);
  await fixture.events.waitFor((record) => record.type === 'workflow/log');
  await fixture.fake.started(2);
  assert.deepEqual(
    fixture.fake.children.map((child) => child.request.prompt),
    ['a1', 'a2'],
    'the third waits for a free slot',
  );
  fixture.fake.children[1]?.answer({ output: 'two' });
  await fixture.fake.started(3);
  assert.equal(fixture.fake.children[2]?.request.prompt, 'a3');
  fixture.fake.children[0]?.answer({ output: 'one' });
  fixture.fake.children[2]?.answer({ output: 'three' });
  const result = await settled(fixture, run);
  assert.deepEqual(result.value, ['one', 'two', 'three']);
  assert.deepEqual(
    fixture.events.of('workflow/agent-start').map((event) => event.label),
    ['a1', 'a2', 'a3'],
  );
});

test('a schema child that ends without a captured value resolves null and is a failure', async () => {
  const fixture = engineFixture({ respond: () => ({ output: 'plain words' }) });
  const run = fixture.start(`return await agent('rate it', { schema: { type: 'object' } });`);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.value, null);
  assert.deepEqual(result.failures, [
    {
      seq: 1,
      label: 'rate it',
      outcome: 'failed',
      reason: 'the agent finished without delivering a structured answer',
    },
  ]);
  const [end] = fixture.events.of('workflow/agent-end');
  assert.equal(end?.outcome, 'failed');
});

test('failed and faulted children resolve null and are listed as failures', async () => {
  const fixture = engineFixture({
    respond: (request) =>
      request.prompt === 'bad'
        ? { error: 'the model refused' }
        : request.prompt === 'fault'
          ? { fault: 'provider crashed' }
          : echoPrompt(request),
  });
  const run = fixture.start(
    `return await parallel([() => agent('bad'), () => agent('fault'), () => agent('good')]);`,
  );
  const result = await settled(fixture, run);
  assert.deepEqual(result.value, [null, null, '<good>']);
  assert.deepEqual(
    result.failures.map((failure) => [failure.seq, failure.outcome, failure.reason]),
    [
      [1, 'failed', 'the model refused'],
      [2, 'failed', 'the agent failed: provider crashed'],
    ],
  );
});

test('a child that cannot start is fatal: UNSUPPORTED_SCHEMA or AGENT_START', async () => {
  const fixture = engineFixture({
    respond: (request) => {
      if (request.outputSchema)
        throw new SubagentError('UNSUPPORTED_SCHEMA', 'this provider takes no schema');
      throw new SubagentError('DEPTH_LIMIT', 'too deep');
    },
  });
  const schema = await settled(
    fixture,
    fixture.start(
      `return await parallel([() => agent('x', { schema: { type: 'string' } }), () => 'fine']);`,
    ),
  );
  assert.equal(schema.error?.code, 'UNSUPPORTED_SCHEMA');
  assert.match(schema.error?.message ?? '', /this provider takes no schema/);
  const other = await fixture.start(`return await agent('y', { label: 'deep' });`).result;
  assert.equal(other.error?.code, 'AGENT_START');
  assert.match(other.error?.message ?? '', /agent "deep" could not start: too deep/);
  assert.equal(fixture.events.of('workflow/agent-start').length, 0);
  assert.equal(other.agentsStarted, 0);
});

test('a synchronous spin in the first slice ends the run within syncTimeoutMs', async () => {
  const fixture = engineFixture({ limits: { syncTimeoutMs: 200 } });
  const result = await settled(fixture, fixture.start(`while (true) {}`));
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'SCRIPT_ERROR');
  assert.match(result.error?.message ?? '', /first synchronous slice ran longer than 200 ms/);
});

test('a spin after an await is ended by cancel: grace, then the worker is terminated', async () => {
  const fixture = engineFixture({
    limits: { cancelGraceMs: 300 },
    respond: (request) => (request.prompt === 'quick' ? echoPrompt(request) : undefined),
  });
  const run = fixture.start(`
    const held = agent('held');
    await agent('quick');
    log('spinning');
    while (true) {}`);
  await fixture.events.waitFor((record) => record.type === 'workflow/log');
  const held = await fixture.fake.child(/held/);
  run.cancel('the user pressed stop');
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(result.value, null);
  assert.equal(result.error?.code, 'CANCELLED');
  assert.match(result.error?.message ?? '', /the user pressed stop/);
  assert.deepEqual(
    [...held.cancelledVia].sort(),
    ['cancel', 'signal'],
    'the host cancelled the held child through both channels',
  );
  assert.equal(result.agentsStarted, 2);
  const heldEnd = fixture.events.of('workflow/agent-end').find((event) => event.label === 'held');
  assert.equal(heldEnd?.outcome, 'cancelled');
  assert.deepEqual(
    result.failures.map((failure) => [failure.label, failure.outcome]),
    [['held', 'cancelled']],
  );
});

test('a wedged child still gets exactly one agent-end when the grace runs out', async () => {
  const fixture = engineFixture({ limits: { cancelGraceMs: 200 }, wedged: () => true });
  const run = fixture.start(`return await agent('stuck');`);
  const stuck = await fixture.fake.child(/stuck/);
  run.cancel();
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'cancelled');
  assert.ok(stuck.cancelledBy);
  const [end] = fixture.events.of('workflow/agent-end');
  assert.equal(end?.outcome, 'cancelled');
  assert.equal(end?.reason, 'the workflow ended before this agent did');
  stuck.answer({ output: 'too late' });
  await run.result;
  assert.equal(fixture.events.of('workflow/agent-end').length, 1);
  assert.deepEqual(pairViolations(fixture.events.records), []);
});

test('cancel before start never runs the body', async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  const run = fixture.start(`log('ran'); await agent('x'); return 1;`);
  run.cancel('not now');
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(result.agentsStarted, 0);
  assert.deepEqual(
    fixture.events.records.map((record) => record.type),
    ['workflow/start', 'workflow/end'],
  );
  const controller = new AbortController();
  controller.abort();
  const aborted = await fixture.start(`log('ran'); return 1;`, { signal: controller.signal })
    .result;
  assert.equal(aborted.stopReason, 'cancelled');
  assert.equal(fixture.events.of('workflow/log').length, 0);
  assert.equal(fixture.fake.children.length, 0);
});

test('aborting the request signal cancels a running run and its children', async () => {
  const fixture = engineFixture();
  const controller = new AbortController();
  const run = fixture.start(`return await parallel([() => agent('a'), () => agent('b')]);`, {
    signal: controller.signal,
  });
  await fixture.fake.started(2);
  controller.abort();
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'cancelled');
  await fixture.fake.allCancelled();
  assert.deepEqual(
    fixture.events.of('workflow/agent-end').map((event) => event.outcome),
    ['cancelled', 'cancelled'],
  );
});

test('worker death settles error and reaps the running children', async () => {
  const fixture = engineFixture();
  const run = fixture.start(`
    const held = agent('held');
    log('started');
    log.constructor('return process')().exit(3);`);
  const held = await fixture.fake.child(/held/);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'error');
  // The isolated engine's script cannot reach `process` to kill its worker: it throws instead.
  assert.match(
    result.error?.message ?? '',
    testEngine === 'isolated' ? /'process' is not defined/ : /worker exited \(code 3\)/,
  );
  assert.ok(held.cancelledBy, 'the orphaned child was cancelled');
  assert.equal(fixture.events.of('workflow/agent-end')[0]?.outcome, 'cancelled');
});

test('children the script did not wait for are cancelled when it returns', async () => {
  const fixture = engineFixture({
    respond: (request) => (request.prompt === 'quick' ? echoPrompt(request) : undefined),
  });
  const run = fixture.start(`agent('forgotten'); return await agent('quick');`);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.value, '<quick>');
  const forgotten = await fixture.fake.child(/forgotten/);
  assert.match(forgotten.cancelledBy ?? '', /ended without waiting/);
  assert.deepEqual(
    result.failures.map((failure) => [failure.label, failure.outcome]),
    [['forgotten', 'cancelled']],
  );
});

test('dispose cancels a running run, releases its worker and is idempotent', async () => {
  const fixture = engineFixture();
  const run = fixture.start(`return await agent('held');`);
  const held = await fixture.fake.child(/held/);
  run.dispose();
  run.dispose();
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'cancelled');
  assert.ok(held.cancelledBy);
  run.cancel();
  run.dispose();
  assert.equal((await run.result).stopReason, 'cancelled');
});
