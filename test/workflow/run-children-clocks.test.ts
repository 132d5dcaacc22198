import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { SubagentRegistry } from '../../src/subagent/registry.js';
import { defaultLimits } from '../../src/workflow/limits.js';
import type { AgentReply } from '../../src/workflow/protocol.js';
import { RunBudget } from '../../src/workflow/run-budget.js';
import { RunChildren } from '../../src/workflow/run-children.js';
import { deferred, type FakeProviderOptions, fakeProvider, testMeta } from './engine-fixture.js';

/** A run's children on the real registry, with its replies kept per call. */
function children(options: FakeProviderOptions = {}) {
  const context = new Context({ name: 'run-children-test' });
  const registry = new SubagentRegistry(context);
  const fake = fakeProvider(options);
  registry.register(fake.provider);
  const replies = new Map<number, ReturnType<typeof deferred<AgentReply>>>();
  const replyTo = (call: number) => {
    let reply = replies.get(call);
    if (!reply) {
      reply = deferred<AgentReply>();
      replies.set(call, reply);
    }
    return reply;
  };
  const subject = new RunChildren({
    runId: 'workflow-test',
    context,
    registry,
    provider: fake.provider.name,
    meta: testMeta,
    limits: { ...defaultLimits(), maxConcurrentAgents: 4 },
    request: { meta: testMeta, script: '', parent: { sessionId: null, delegationDepth: 0 } },
    childInstructions: () => '',
    budget: new RunBudget(null),
    reply: (call, reply) => replyTo(call).resolve(reply),
    onChildEnded: () => {},
  });
  const ask = (call: number, timeoutMs?: number) =>
    subject.request({
      call,
      prompt: `item ${call}`,
      options: timeoutMs !== undefined ? { timeoutMs } : {},
      phase: '',
    });
  return { subject, fake, ask, reply: (call: number) => replyTo(call).promise };
}

test('a child that ends in time leaves no timer behind: its clocks are cleared when it ends', async () => {
  const { subject, fake, ask, reply } = children();
  ask(1, 3_600_000);
  ask(2);
  await fake.started(2);
  assert.equal(subject.timedAgents, 2, 'a time limit and stall clocks are set');
  const [first, second] = fake.children;
  first?.answer({ output: 'one' });
  assert.deepEqual(await reply(1), { kind: 'ok', value: 'one' });
  assert.equal(subject.timedAgents, 1, 'the ended child has no timer left');
  second?.answer({ error: 'the model refused' });
  assert.deepEqual(await reply(2), { kind: 'failure', reason: 'the model refused' });
  assert.equal(subject.timedAgents, 0);
});

test('cancelling the run clears every clock: the run reason wins, not a later limit', async () => {
  const { subject, fake, ask, reply } = children();
  ask(1, 3_600_000);
  await fake.started(1);
  assert.equal(subject.timedAgents, 1);
  subject.cancelAll('the workflow was cancelled');
  assert.equal(subject.timedAgents, 0);
  const answer = await reply(1);
  assert.equal(answer.kind, 'failure');
  assert.deepEqual(
    subject.failures.map((failure) => failure.outcome),
    ['cancelled'],
  );
});

test('a provider without activity reports gets a clock only for timeoutMs', async () => {
  const { subject, fake, ask } = children({ noActivity: true });
  ask(1);
  ask(2, 3_600_000);
  await fake.started(2);
  assert.equal(subject.timedAgents, 1, 'no stall clock for a child that cannot report activity');
  subject.endStranded('the test is over');
  assert.equal(subject.timedAgents, 0);
});
