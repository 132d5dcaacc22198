import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SubagentStartRequest } from '../../src/subagent/contract.js';
import { readStoredRun } from '../../src/workflow/run-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { echoPrompt, engineFixture, settled } from './engine-fixture.js';

// Per-agent limits: `timeoutMs` and the stall detector each end ONE child (failed, reason
// exactly `timeout` / `stalled`, null to the script, listed in failures); the others complete.

test('timeoutMs fails one child with reason timeout while the others complete', async () => {
  const fixture = engineFixture({
    respond: (request) => (request.prompt === 'slow' ? undefined : echoPrompt(request)),
  });
  const run = fixture.start(`
    return await parallel([
      () => agent('fast a', { timeoutMs: 60000 }),
      () => agent('slow', { timeoutMs: 50, label: 'the slow one' }),
      () => agent('fast b'),
    ]);`);
  await fixture.events.waitFor(
    (record) => record.type === 'workflow/agent-end' && record.outcome === 'failed',
  );
  // Before the run ends (which aborts the run's signal for everyone): only that child was cancelled.
  const slow = await fixture.fake.child(/^slow$/);
  assert.match(slow.cancelledBy ?? '', /time limit of 50 ms \(timeoutMs\)/);
  assert.deepEqual([...slow.cancelledVia], ['cancel']);
  const fast = fixture.fake.children.filter((child) => child !== slow);
  assert.deepEqual(
    fast.map((child) => child.cancelledBy),
    [undefined, undefined],
  );
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, ['<fast a>', null, '<fast b>']);
  assert.deepEqual(result.failures, [
    { seq: 2, label: 'the slow one', outcome: 'failed', reason: 'timeout' },
  ]);
  const ends = fixture.events.of('workflow/agent-end');
  assert.deepEqual(
    ends.map((end) => [end.seq, end.outcome, end.reason]),
    [
      [1, 'completed', undefined],
      [3, 'completed', undefined],
      [2, 'failed', 'timeout'],
    ],
  );
  assert.deepEqual(
    result.agents.map((agent) => agent.outcome),
    ['completed', 'failed', 'completed'],
  );
});

test('a child that ignores its timeout cancel ends anyway after the grace, freeing its slot', async () => {
  const fixture = engineFixture({
    limits: { maxConcurrentAgents: 1, cancelGraceMs: 40 },
    respond: (request) => (request.prompt === 'wedged' ? undefined : echoPrompt(request)),
    wedged: (request) => request.prompt === 'wedged',
  });
  const run = fixture.start(`
    return await parallel([() => agent('wedged', { timeoutMs: 30 }), () => agent('next')]);`);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, [null, '<next>'], 'the one slot went to the next child');
  assert.deepEqual(result.failures, [
    { seq: 1, label: 'wedged', outcome: 'failed', reason: 'timeout' },
  ]);
  const wedged = await fixture.fake.child(/^wedged$/);
  assert.match(wedged.cancelledBy ?? '', /time limit of 30 ms/);
  assert.equal(wedged.settled, false, 'it never stopped');
});

test('a child whose model is silent for stallMs fails with reason stalled; busy ones complete', async () => {
  const fixture = engineFixture({
    limits: { stallMs: 50 },
    respond: (request) => {
      if (request.prompt === 'in tools') {
        // The model answered and the child runs its tools: its stall clock rests.
        request.onActivity?.('output');
        request.onActivity?.('answered');
        return undefined;
      }
      return request.prompt === 'quiet' ? undefined : echoPrompt(request);
    },
  });
  // `in tools` starts before `quiet`, so were its stall timer set it would fire first.
  const run = fixture.start(`
    const tools = agent('in tools');
    const others = await parallel([() => agent('quiet'), () => agent('answers')]);
    log('stall seen');
    await tools;
    return others;`);
  const stalled = await fixture.events.waitFor(
    (record) => record.type === 'workflow/agent-end' && record.outcome === 'failed',
  );
  assert.equal(stalled.type === 'workflow/agent-end' && stalled.reason, 'stalled');
  const quiet = await fixture.fake.child(/^quiet$/);
  assert.match(quiet.cancelledBy ?? '', /no output for 50 ms \(workflow\.stallMs\)/);
  const inTools = await fixture.fake.child(/^in tools$/);
  await fixture.events.waitFor((record) => record.type === 'workflow/log');
  assert.equal(inTools.cancelledBy, undefined, 'a child running its tools is not stalled');
  inTools.answer({ output: 'done' });
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, [null, '<answers>']);
  assert.deepEqual(result.failures, [
    { seq: 2, label: 'quiet', outcome: 'failed', reason: 'stalled' },
  ]);
});

test('a provider that cannot report activity never has a child stall-cancelled', async () => {
  const fixture = engineFixture({
    noActivity: true,
    limits: { stallMs: 1 },
    respond: () => undefined,
  });
  // The quiet child starts first and outlives another child's 50 ms time limit: far past its
  // 1 ms stallMs, so a stall timer of its own would have fired first.
  const run = fixture.start(`
    const quiet = agent('quiet');
    const limited = await agent('limited', { timeoutMs: 50 });
    log('limit seen');
    return [limited, await quiet];`);
  const quiet = await fixture.fake.child(/^quiet$/);
  assert.equal(quiet.request.onActivity, undefined, 'no activity is asked of it');
  await fixture.events.waitFor((record) => record.type === 'workflow/log');
  assert.equal(quiet.cancelledBy, undefined);
  quiet.answer({ output: 'late' });
  const result = await settled(fixture, run);
  assert.deepEqual(result.value, [null, 'late']);
  assert.deepEqual(
    result.failures.map((failure) => [failure.label, failure.reason]),
    [['limited', 'timeout']],
  );
});

test('timeoutMs must be a positive whole number of milliseconds: anything else is fatal', async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  for (const bad of ['0', '-5', '1.5', "'100'", 'Infinity', 'NaN', 'null', '2147483648']) {
    // Written literally, the start refuses it; through a variable, the call does.
    if (bad !== 'Infinity' && bad !== 'NaN') {
      assert.throws(
        () => fixture.start(`return await agent('x', { timeoutMs: ${bad} });`),
        /agent\(\) option timeoutMs must be a positive whole number of milliseconds/,
        bad,
      );
    }
    const result = await settled(
      fixture,
      fixture.start(`const value = ${bad};\nreturn await agent('x', { timeoutMs: value });`),
    );
    assert.equal(result.stopReason, 'error', bad);
    assert.equal(result.error?.code, 'INVALID_ARGUMENT', bad);
    assert.match(
      result.error?.message ?? '',
      /agent\(\) option timeoutMs must be a positive whole number of milliseconds/,
      bad,
    );
  }
  assert.equal(fixture.fake.children.length, 0, 'no child started');
});

test('a timed-out child is not journaled; a resume with a longer timeoutMs still finds the rest', async () => {
  const home = temporaryFolder();
  const held = (request: SubagentStartRequest) =>
    request.prompt === 'slow' ? undefined : echoPrompt(request);
  const first = engineFixture({ respond: held, service: { home } });
  const original = await settled(
    first,
    first.start(`return await parallel([
      () => agent('done', { timeoutMs: 60000 }),
      () => agent('slow', { timeoutMs: 30 }),
    ]);`),
  );
  assert.deepEqual(original.value, ['<done>', null]);
  assert.deepEqual(
    original.failures.map((failure) => failure.reason),
    ['timeout'],
  );
  const folder = readStoredRun(home, original.runId).folder;
  const journal = readFileSync(join(folder, 'journal.ndjson'), 'utf8').trim().split('\n');
  assert.deepEqual(
    journal.map((line) => (JSON.parse(line) as { value: unknown }).value),
    ['<done>'],
    'only the completed call is journaled',
  );

  const again = engineFixture({ respond: echoPrompt, service: { home } });
  const resumed = await settled(
    again,
    again.start(
      `return await parallel([
        () => agent('done', { timeoutMs: 120000 }),
        () => agent('slow', { timeoutMs: 60000 }),
      ]);`,
      { resumeRunId: original.runId },
    ),
  );
  assert.deepEqual(resumed.value, ['<done>', '<slow>']);
  assert.deepEqual(
    again.fake.children.map((child) => child.request.prompt),
    ['slow'],
    'the completed call is answered from the journal despite its new time limit',
  );
  assert.deepEqual(resumed.failures, []);
});
