import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import {
  type SubagentCapabilities,
  SubagentError,
  type SubagentProvider,
  type SubagentStartRequest,
} from '../../src/subagent/contract.js';
import { SubagentRegistry } from '../../src/subagent/registry.js';
import { type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const noCapabilities: SubagentCapabilities = {
  outputSchema: false,
  depthLimit: false,
  toolFilter: false,
  persona: false,
  inheritsParentContext: false,
  activity: false,
  workspace: false,
};

const model = {
  rules: [
    { when: 'fail me', error: 'upstream 500: overloaded' },
    { when: 'hang', hang: true as const },
  ],
  default: { reply: 'ok: {{prompt}}' },
};

/** A provider that starts in-process spawn children but declares every capability missing. */
function limitedProvider(fixture: SubagentFixture): SubagentProvider {
  const spawn = fixture.services.registry.get('spawn');
  return {
    name: 'limited',
    capabilities: noCapabilities,
    start: (request) => spawn.start(request),
  };
}

function fromRoot(fixture: SubagentFixture, prompt: string): SubagentStartRequest {
  return { parent: { sessionId: fixture.rootId, delegationDepth: 0 }, prompt };
}

/** Each run has exactly one start and one end, the end after the start. */
function assertPaired(fixture: SubagentFixture): void {
  const startIds = fixture.starts.map((event) => event.runId);
  const endIds = fixture.ends.map((event) => event.runId);
  assert.equal(new Set(startIds).size, startIds.length, 'a run started twice');
  assert.deepEqual([...endIds].sort(), [...startIds].sort());
}

test('registering a second provider under a taken name is DUPLICATE_PROVIDER', () => {
  const registry = new SubagentRegistry(new Context());
  const provider: SubagentProvider = {
    name: 'twin',
    capabilities: noCapabilities,
    start: () => {
      throw new Error('never started');
    },
  };
  const undo = registry.register(provider);
  assert.throws(
    () => registry.register({ ...provider }),
    (error: unknown) =>
      error instanceof SubagentError &&
      error.code === 'DUPLICATE_PROVIDER' &&
      /twin/.test(error.message),
  );
  undo();
  assert.doesNotThrow(() => registry.register({ ...provider }));
});

test('the installed layer registers spawn, fork and acp; a duplicate of either is refused', async () => {
  const fixture = subagentFixture({ model });
  const { registry } = fixture.services;
  assert.deepEqual(registry.names().sort(), ['acp', 'fork', 'spawn']);
  assert.equal(registry.get('spawn').capabilities.inheritsParentContext, false);
  assert.equal(registry.get('fork').capabilities.inheritsParentContext, true);
  assert.throws(
    () => registry.register({ ...registry.get('spawn') }),
    (error: unknown) => error instanceof SubagentError && error.code === 'DUPLICATE_PROVIDER',
  );
  await fixture.close();
});

test('an unknown provider is UNKNOWN_PROVIDER naming the registered ones', async () => {
  const fixture = subagentFixture({ model });
  assert.throws(
    () => fixture.services.registry.start('claude', fromRoot(fixture, 'hello')),
    (error: unknown) =>
      error instanceof SubagentError &&
      error.code === 'UNKNOWN_PROVIDER' &&
      /claude/.test(error.message) &&
      /acp/.test(error.message) &&
      /spawn/.test(error.message) &&
      /fork/.test(error.message),
  );
  assert.equal(fixture.starts.length, 0);
  await fixture.close();
});

for (const [field, value] of [
  ['outputSchema', { type: 'object', properties: { a: { type: 'string' } } }],
  ['maxDepth', 2],
  ['toolFilter', ['echo']],
  ['persona', 'You are someone else.'],
] as const) {
  test(`${field} sent to a provider without that capability is refused before anything starts`, async () => {
    const fixture = subagentFixture({ model });
    const { registry } = fixture.services;
    const undo = registry.register(limitedProvider(fixture));
    const before = fixture.sessionFiles();
    const request = { ...fromRoot(fixture, 'refused task'), [field]: value };
    assert.throws(
      () => registry.start('limited', request),
      (error: unknown) =>
        error instanceof SubagentError &&
        error.code === 'UNSUPPORTED_CAPABILITY' &&
        error.message.includes(field) &&
        /limited/.test(error.message),
    );
    assert.deepEqual(fixture.sessionFiles(), before, 'no child session file was created');
    assert.equal(fixture.starts.length, 0, 'no subagent/start was emitted');
    assert.equal(fixture.model.calls.length, 0);

    const plain = registry.start('limited', fromRoot(fixture, 'plain task'));
    assert.equal((await plain.result).output, 'ok: plain task');
    undo();
    await fixture.close();
  });
}

test('every field the provider lacks is named in one refusal', async () => {
  const fixture = subagentFixture({ model });
  fixture.services.registry.register(limitedProvider(fixture));
  assert.throws(
    () =>
      fixture.services.registry.start('limited', {
        ...fromRoot(fixture, 'x'),
        persona: 'p',
        toolFilter: ['echo'],
      }),
    /does not support toolFilter, persona/,
  );
  await fixture.close();
});

test('subagent/start and subagent/end pair once for a completed run', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', {
    ...fromRoot(fixture, 'do it'),
    description: 'a job',
  });
  assert.equal(fixture.starts.length, 1, 'start is emitted when start() returns');
  assert.deepEqual(fixture.starts[0], {
    runId: run.id,
    provider: 'spawn',
    parentSession: fixture.rootId,
    description: 'a job',
    depth: 1,
  });
  const result = await run.result;
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(fixture.ends, [{ ...fixture.starts[0], stopReason: 'completed' }]);
  run.dispose();
  assertPaired(fixture);
  await fixture.close();
});

test('subagent/end carries error and its diagnostic for a failing child', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', fromRoot(fixture, 'fail me'));
  const result = await run.result;
  assert.equal(result.stopReason, 'error');
  assert.equal(fixture.ends.length, 1);
  assert.equal(fixture.ends[0]?.stopReason, 'error');
  assert.match(fixture.ends[0]?.diagnostic ?? '', /upstream 500/);
  assertPaired(fixture);
  await fixture.close();
});

test('run.cancel() ends a running child as cancelled, paired once', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', fromRoot(fixture, 'hang'));
  await fixture.model.waitForRequest(/^hang$/);
  run.cancel('enough');
  run.cancel('twice');
  const result = await run.result;
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(fixture.ends.length, 1);
  assert.equal(fixture.ends[0]?.stopReason, 'cancelled');
  assertPaired(fixture);
  await fixture.close();
});

test("aborting the request's signal cancels the child, paired once", async () => {
  const fixture = subagentFixture({ model });
  const controller = new AbortController();
  const run = fixture.services.registry.start('spawn', {
    ...fromRoot(fixture, 'hang'),
    signal: controller.signal,
  });
  await fixture.model.waitForRequest(/^hang$/);
  controller.abort();
  const result = await run.result;
  assert.equal(result.stopReason, 'cancelled');
  assert.deepEqual(
    fixture.ends.map((event) => event.stopReason),
    ['cancelled'],
  );
  assertPaired(fixture);
  await fixture.close();
});

test('a signal aborted before start cancels the child at once', async () => {
  const fixture = subagentFixture({ model });
  const controller = new AbortController();
  controller.abort();
  const run = fixture.services.registry.start('spawn', {
    ...fromRoot(fixture, 'hang'),
    signal: controller.signal,
  });
  const result = await run.result;
  assert.equal(result.stopReason, 'cancelled');
  assertPaired(fixture);
  await fixture.close();
});

test('disposing a running child cancels it and still ends the run once', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', fromRoot(fixture, 'hang'));
  await fixture.model.waitForRequest(/^hang$/);
  run.dispose();
  run.dispose();
  const result = await run.result;
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(fixture.runtime.find(run.id), undefined, 'the child is closed');
  assert.deepEqual(
    fixture.ends.map((event) => event.stopReason),
    ['cancelled'],
  );
  assertPaired(fixture);
  await fixture.close();
});

test('a run disposed before its first step still ends once', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', fromRoot(fixture, 'do it'));
  run.dispose();
  const result = await run.result;
  assert.equal(result.stopReason, 'cancelled');
  assertPaired(fixture);
  await fixture.close();
});

test('an infrastructure fault rejects the result and still emits one end (error)', async () => {
  const fixture = subagentFixture({ model });
  const fault = new Error('the transport died');
  fixture.services.registry.register({
    name: 'broken',
    capabilities: noCapabilities,
    start: () => ({
      id: 'broken-1',
      result: Promise.reject(fault),
      cancel: () => {},
      dispose: () => {},
    }),
  });
  const run = fixture.services.registry.start('broken', fromRoot(fixture, 'x'));
  await assert.rejects(run.result, /the transport died/);
  assert.deepEqual(
    fixture.ends.map((event) => [event.runId, event.stopReason, event.diagnostic]),
    [['broken-1', 'error', 'the transport died']],
  );
  assertPaired(fixture);
  await fixture.close();
});

test('many runs of every outcome: each start has exactly one end', async () => {
  const fixture = subagentFixture({ model });
  const { registry } = fixture.services;
  const completed = registry.start('spawn', fromRoot(fixture, 'one'));
  const failed = registry.start('spawn', fromRoot(fixture, 'fail me'));
  const cancelled = registry.start('spawn', fromRoot(fixture, 'hang'));
  const disposed = registry.start('fork', fromRoot(fixture, 'hang'));
  await fixture.model.waitForRequest(/^hang$/);
  cancelled.cancel();
  disposed.dispose();
  const results = await Promise.all(
    [completed, failed, cancelled, disposed].map((run) => run.result),
  );
  assert.deepEqual(
    results.map((result) => result.stopReason),
    ['completed', 'error', 'cancelled', 'cancelled'],
  );
  assert.equal(fixture.starts.length, 4);
  assertPaired(fixture);
  await fixture.close();
});
