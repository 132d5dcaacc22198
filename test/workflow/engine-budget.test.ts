import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import { engineFixture, settled, testMeta } from './engine-fixture.js';

test('budget.spent() is live: a running child is charged per model request, before it ends', async () => {
  const fixture = engineFixture();
  const run = fixture.start(`
    const slow = agent('slow');
    await agent('fast');
    const seen = [budget.total, budget.spent(), budget.remaining() === Infinity];
    log('seen');
    await slow;
    return { seen, after: budget.spent() };`);
  const slow = await fixture.fake.child(/slow/);
  const fast = await fixture.fake.child(/fast/);
  slow.report({ input: 70, output: 30 });
  fast.answer({ output: 'f', usage: { input: 5, output: 5 } });
  await fixture.events.waitFor((record) => record.type === 'workflow/log');
  slow.answer({ output: 's', usage: { input: 1, output: 1 } });
  const result = await settled(fixture, run);
  assert.deepEqual(result.value, { seen: [null, 110, true], after: 112 });
  assert.deepEqual(result.usage, { input: 76, output: 36 });
  assert.deepEqual(result.agents, [
    { seq: 1, label: 'slow', outcome: 'completed', tokens: { input: 71, output: 31 } },
    { seq: 2, label: 'fast', outcome: 'completed', tokens: { input: 5, output: 5 } },
  ]);
  assert.equal(result.costUsd, undefined, 'no prices, no cost');
  assert.deepEqual(
    fixture.events.of('workflow/agent-end').map((end) => [end.label, end.usage, end.costUsd]),
    [
      ['fast', { input: 5, output: 5 }, undefined],
      ['slow', { input: 71, output: 31 }, undefined],
    ],
  );
});

test('a spent budget ends the run BUDGET_EXHAUSTED: running children cancelled, queued never start, whatever the script catches', async () => {
  const fixture = engineFixture({ limits: { maxConcurrentAgents: 2 } });
  const run = fixture.start(
    `try {
      return await parallel(['a', 'b', 'c', 'd'].map((p) => () => agent(p)));
    } catch (error) {
      return 'caught ' + error.code;
    }`,
    { budgetTokens: 100 },
  );
  await fixture.fake.started(2);
  const [a, b] = fixture.fake.children;
  assert.ok(a && b);
  a.report({ input: 40, output: 20 });
  b.answer({ output: 'b', usage: { input: 30, output: 20 } });
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.value, null);
  assert.equal(result.error?.code, 'BUDGET_EXHAUSTED');
  assert.match(
    result.error?.message ?? '',
    /^the token budget of 100 tokens is spent \(110 tokens used\); agents still running were cancelled/,
  );
  assert.equal(fixture.fake.children.length, 2, 'the queued agents never started');
  assert.match(a.cancelledBy ?? '', /the token budget of 100 tokens is spent/);
  assert.equal(result.agentsStarted, 2);
  assert.deepEqual(result.failures, [
    { seq: 1, label: 'a', outcome: 'cancelled', reason: a.cancelledBy },
  ]);
  assert.deepEqual(
    result.agents.map((agent) => [agent.seq, agent.outcome, agent.tokens]),
    [
      [1, 'cancelled', { input: 40, output: 20 }],
      [2, 'completed', { input: 30, output: 20 }],
    ],
  );
  const [end] = fixture.events.of('workflow/end');
  assert.equal(end?.error?.code, 'BUDGET_EXHAUSTED');
});

test('a provider that reports no requests is charged when its child ends, and later agent() calls are refused', async () => {
  const fixture = engineFixture({
    silent: true,
    respond: () => ({ output: 'x', usage: { input: 80, output: 40 } }),
    limits: { maxConcurrentAgents: 1 },
  });
  const run = fixture.start(`await agent('one'); await agent('two'); return 'done';`, {
    budgetTokens: 100,
  });
  const result = await settled(fixture, run);
  assert.equal(result.error?.code, 'BUDGET_EXHAUSTED');
  assert.deepEqual(
    fixture.fake.children.map((child) => child.request.prompt),
    ['one'],
  );
  assert.deepEqual(result.usage, { input: 80, output: 40 });
});

test('the total comes from the request, else meta.budgetTokens; a bad one cannot start', async () => {
  const fixture = engineFixture();
  const meta = { ...testMeta, budgetTokens: 500 };
  const fromMeta = await settled(fixture, fixture.start(`return budget.total;`, { meta }));
  assert.equal(fromMeta.value, 500);
  const fromRequest = await settled(
    fixture,
    fixture.start(`return [budget.total, budget.remaining()];`, { meta, budgetTokens: 42 }),
  );
  assert.deepEqual(fromRequest.value, [42, 42]);
  for (const budgetTokens of [0, 1.5, -10]) {
    assert.throws(
      () => fixture.start(`return 1;`, { budgetTokens }),
      (error: unknown) =>
        error instanceof WorkflowError &&
        error.code === 'INVALID_ARGUMENT' &&
        /budgetTokens/.test(error.message),
    );
  }
  assert.equal(fixture.service.liveWorkers, 0);
});

test('prices give each agent-end and the result a cost; one unpriced agent leaves the total unknown', async () => {
  const prices = { 'fake:cheap': { input: 1, output: 2 }, 'fake:dear': { input: 10, output: 20 } };
  const fixture = engineFixture({
    respond: () => ({ output: 'ok', usage: { input: 1000, output: 500 } }),
    // `fake` is a configured route: a script may name its models.
    service: { prices, modelRoutes: ['fake'] },
  });
  const priced = await settled(
    fixture,
    fixture.start(
      `return await parallel([() => agent('a', { model: 'fake:cheap' }), () => agent('b', { model: 'fake:dear' })]);`,
    ),
  );
  assert.deepEqual(
    priced.agents.map((agent) => agent.costUsd),
    [0.002, 0.02],
  );
  assert.ok(Math.abs((priced.costUsd ?? 0) - 0.022) < 1e-12);
  assert.deepEqual(
    fixture.events.of('workflow/agent-end').map((end) => end.costUsd),
    [0.002, 0.02],
  );
  const mixed = await settled(
    fixture,
    fixture.start(
      `return await parallel([() => agent('a', { model: 'fake:cheap' }), () => agent('c', { model: 'fake:unknown' })]);`,
    ),
  );
  assert.deepEqual(
    mixed.agents.map((agent) => agent.costUsd),
    [0.002, undefined],
  );
  assert.equal(mixed.costUsd, undefined);
  assert.equal('costUsd' in (mixed.agents[1] ?? {}), false);
});
