import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SubagentError } from '../../src/subagent/contract.js';
import { REACH_PORT } from '../helpers/worker-port.js';
import { echoPrompt, engineFixture, settled, testEngine } from './engine-fixture.js';

test('a child that cannot start ends the run even when the script drops or catches its promise', async () => {
  const fixture = engineFixture({
    limits: { maxTotalAgents: 2 },
    respond: (request) => {
      if (request.outputSchema)
        throw new SubagentError('UNSUPPORTED_SCHEMA', 'this provider takes no schema');
      if (request.prompt === 'deep') throw new SubagentError('DEPTH_LIMIT', 'too deep');
      return echoPrompt(request);
    },
  });
  const dropped = await settled(
    fixture,
    fixture.start(`agent('x', { schema: { type: 'string' } }); return 5;`),
  );
  assert.equal(dropped.stopReason, 'error');
  assert.equal(dropped.value, null);
  assert.equal(dropped.error?.code, 'UNSUPPORTED_SCHEMA');
  assert.match(dropped.error?.message ?? '', /this provider takes no schema/);

  const caught = await settled(
    fixture,
    fixture.start(`try { await agent('deep'); } catch (error) { log(error.code); } return 5;`),
  );
  assert.equal(caught.stopReason, 'error');
  assert.equal(caught.error?.code, 'AGENT_START');
  assert.match(caught.error?.message ?? '', /agent "deep" could not start: too deep/);

  const capped = await settled(
    fixture,
    fixture.start(`agent('a'); agent('b'); agent('c'); return 5;`),
  );
  assert.equal(capped.stopReason, 'error');
  assert.equal(capped.error?.code, 'AGENT_CAP');
  assert.equal(capped.agentsStarted, 2);
});

test('AGENT_CAP states how many agents were asked for, started and waiting, and the cap', async () => {
  const fixture = engineFixture({ limits: { maxConcurrentAgents: 2, maxTotalAgents: 5 } });
  const run = fixture.start(
    `return await parallel(Array.from({ length: 8 }, (_, index) => () => agent('item ' + index)));`,
  );
  const result = await settled(fixture, run);
  assert.equal(result.error?.code, 'AGENT_CAP');
  assert.equal(
    result.error?.message,
    'agent() refused: this run has already asked for 5 agents (2 started, 3 waiting for a free slot); the limit is 5 (maxTotalAgents)',
  );
  assert.equal(result.agentsStarted, 2);
  assert.deepEqual(
    fixture.events.of('workflow/agent-end').map((event) => event.outcome),
    ['cancelled', 'cancelled'],
  );
});

test('a workflow child is started without the workflow tool', async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  const result = await settled(fixture, fixture.start(`return await agent('child');`));
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(fixture.fake.children[0]?.request.toolFilter, ['workflow']);
});

const forgeries: Array<{ name: string; message: string; fault: RegExp }> = [
  {
    name: 'a done whose value is a bigint',
    message: `{ tag: 'done', payload: { kind: 'ok', value: 10n } }`,
    fault: /a malformed done message: payload\.value is a bigint, which JSON cannot carry/,
  },
  {
    name: 'a done whose value the value boundary would refuse (a Map)',
    message: `{ tag: 'done', payload: { kind: 'ok', value: { nested: [new Map()] } } }`,
    fault: /payload\.value\["nested"\]\[0\] is a Map, which JSON cannot carry/,
  },
  {
    name: 'a log whose message is a bigint',
    message: `{ tag: 'log', payload: { message: 10n } }`,
    fault: /a malformed log message: payload\.message must be a string, not a bigint/,
  },
  {
    name: 'an agent-start out of sequence',
    message: `{ tag: 'agent-start', payload: { call: 7, prompt: 'forged', options: {} } }`,
    fault: /agent-start numbered 7 after 1/,
  },
  {
    name: 'a workflow-load out of sequence',
    message: `{ tag: 'workflow-load', payload: { load: 2, target: 'b.js' } }`,
    fault: /workflow-load numbered 2 after 0/,
  },
  {
    name: 'a workflow-load whose target is not a string',
    message: `{ tag: 'workflow-load', payload: { load: 1, target: ['b.js'] } }`,
    fault: /a malformed workflow-load message: payload\.target must be a string, not an array/,
  },
  {
    name: 'a second started',
    message: `{ tag: 'started', payload: {} }`,
    fault: /sent started twice/,
  },
  {
    name: 'a second ready',
    message: `{ tag: 'ready', payload: {} }`,
    fault: /sent ready twice/,
  },
  {
    name: 'an unknown tag',
    message: `{ tag: 'spawn', payload: {} }`,
    fault: /a message with an unknown tag "spawn"/,
  },
];

test('every message from the worker is checked: a forged one ends the run as SCRIPT_ERROR, events paired', async () => {
  for (const forgery of forgeries) {
    const fixture = engineFixture();
    const run = fixture.start(
      `const held = agent('held');
       log('holding');
       ${REACH_PORT}
       port.postMessage(${forgery.message});
       return await held;`,
    );
    const held = await fixture.fake.child(/held/);
    const result = await settled(fixture, run);
    assert.equal(result.stopReason, 'error', forgery.name);
    assert.equal(result.value, null, forgery.name);
    assert.equal(result.error?.code, 'SCRIPT_ERROR', forgery.name);
    if (testEngine === 'isolated') {
      // The isolated engine's script never reaches the port (isolated-trust.test.ts probes more).
      assert.match(result.error?.message ?? '', /^ReferenceError: 'process' is not defined/);
    } else {
      assert.match(result.error?.message ?? '', /^workflow protocol fault: the worker sent /);
      assert.match(result.error?.message ?? '', forgery.fault, forgery.name);
    }
    assert.ok(held.cancelledBy, `${forgery.name}: the held child was cancelled`);
    assert.deepEqual(
      fixture.events.of('workflow/agent-end').map((event) => event.outcome),
      ['cancelled'],
      forgery.name,
    );
    assert.deepEqual(
      fixture.events.of('workflow/log').map((event) => event.message),
      ['holding'],
      forgery.name,
    );
    const [end] = fixture.events.of('workflow/end');
    assert.deepEqual(end?.error, result.error, forgery.name);
    assert.doesNotThrow(() => JSON.stringify(fixture.events.records), forgery.name);
  }
});
