import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { Context } from '../../src/core/context.js';
import { SubagentRegistry } from '../../src/subagent/registry.js';
import type { WorkflowLimits } from '../../src/workflow/contract.js';
import { HostRun } from '../../src/workflow/host-run.js';
import { defaultLimits } from '../../src/workflow/limits.js';
import { HostMessage, WorkerMessage } from '../../src/workflow/protocol.js';
import { RunBudget } from '../../src/workflow/run-budget.js';
import {
  echoPrompt,
  type FakeProviderOptions,
  fakeProvider,
  pairViolations,
  recordEvents,
  testMeta,
} from './engine-fixture.js';

/** The part of a `Worker` a run uses; each post is kept as it was sent. */
class FakeWorker extends EventEmitter {
  readonly posts: unknown[] = [];
  private readonly waiting: Array<() => void> = [];

  postMessage(post: unknown): void {
    this.posts.push(structuredClone(post));
    for (const wake of this.waiting.splice(0)) wake();
  }

  terminate(): Promise<number> {
    queueMicrotask(() => this.emit('exit', 1));
    return Promise.resolve(1);
  }

  /** Resolves once `count` posts have arrived. */
  async posted(count: number): Promise<void> {
    while (this.posts.length < count) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }
}

function hostRun(
  worker: FakeWorker,
  options: FakeProviderOptions & { budget?: RunBudget; limits?: Partial<WorkflowLimits> } = {},
) {
  const context = new Context({ name: 'host-run-test' });
  const registry = new SubagentRegistry(context);
  const fake = fakeProvider({ respond: echoPrompt, ...options });
  registry.register(fake.provider);
  const events = recordEvents(context);
  const run = new HostRun({
    runId: 'workflow-test',
    context,
    registry,
    provider: fake.provider.name,
    meta: testMeta,
    limits: { ...defaultLimits(), maxConcurrentAgents: 4, ...options.limits },
    request: { meta: testMeta, script: '', parent: { sessionId: null, delegationDepth: 0 } },
    childInstructions: () => '',
    budget: options.budget ?? new RunBudget(null),
    worker: worker as unknown as Worker,
    onWorkerExit: () => {},
  });
  return { run, fake, events };
}

const started = { tag: WorkerMessage.Started, payload: {} };

const agentStart = (call: number) => ({
  tag: WorkerMessage.AgentStart,
  payload: { call, prompt: `item ${call}`, options: {} },
});

test('replies ready in one turn of the loop reach the worker as one post, in call order', async () => {
  const worker = new FakeWorker();
  const { run, fake, events } = hostRun(worker);
  worker.emit('message', { tag: WorkerMessage.Ready, payload: {} });
  await worker.posted(1);
  assert.deepEqual(worker.posts[0], { tag: HostMessage.Go, payload: {} });
  worker.emit('message', started);

  for (const call of [1, 2, 3]) worker.emit('message', agentStart(call));
  await worker.posted(2);
  assert.deepEqual(
    fake.children.map((child) => child.request.prompt),
    ['item 1', 'item 2', 'item 3'],
  );
  assert.deepEqual(
    worker.posts[1],
    [1, 2, 3].map((call) => ({
      tag: HostMessage.AgentResult,
      payload: { call, reply: { kind: 'ok', value: `<item ${call}>` } },
    })),
  );

  worker.emit('message', { tag: WorkerMessage.Done, payload: { kind: 'ok', value: 3 } });
  const result = await run.result;
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.agentsStarted, 3);
  assert.deepEqual(
    events.of('workflow/agent-end').map((event) => event.seq),
    [1, 2, 3],
  );
  assert.equal(worker.posts.length, 2);
});

test('what the host sends in one turn reaches the worker in one post, in the order sent', async () => {
  const worker = new FakeWorker();
  const { run } = hostRun(worker);
  worker.emit('message', { tag: WorkerMessage.Ready, payload: {} });
  await worker.posted(1);
  worker.emit('message', started);
  worker.emit('message', agentStart(1));
  run.cancel('enough');
  await worker.posted(2);
  // The child has answered, but its result settles a microtask later: cancel is sent first.
  assert.deepEqual(worker.posts[1], [
    { tag: HostMessage.Cancel, payload: { reason: 'enough' } },
    {
      tag: HostMessage.AgentResult,
      payload: { call: 1, reply: { kind: 'ok', value: '<item 1>' } },
    },
  ]);

  worker.emit('message', { tag: WorkerMessage.Done, payload: { kind: 'ok', value: 1 } });
  assert.equal((await run.result).stopReason, 'cancelled');
});

test('the spent tokens go once per post, just before the replies, with the latest figure', async () => {
  const worker = new FakeWorker();
  const budget = new RunBudget(1000);
  const { run } = hostRun(worker, {
    budget,
    respond: (request) => ({ output: `<${request.prompt}>`, usage: { input: 10, output: 5 } }),
  });
  worker.emit('message', { tag: WorkerMessage.Ready, payload: {} });
  await worker.posted(1);
  worker.emit('message', started);
  for (const call of [1, 2, 3]) worker.emit('message', agentStart(call));
  await worker.posted(2);
  assert.deepEqual(worker.posts[1], [
    { tag: HostMessage.Budget, payload: { spent: 45, exhausted: false } },
    ...[1, 2, 3].map((call) => ({
      tag: HostMessage.AgentResult,
      payload: { call, reply: { kind: 'ok', value: `<item ${call}>` } },
    })),
  ]);
  worker.emit('message', agentStart(4));
  await worker.posted(3);
  assert.deepEqual(
    (worker.posts[2] as Array<{ tag: string; payload: unknown }>)[0],
    { tag: HostMessage.Budget, payload: { spent: 60, exhausted: false } },
    'a later post carries its own figure',
  );
  worker.emit('message', { tag: WorkerMessage.Done, payload: { kind: 'ok', value: 4 } });
  const result = await run.result;
  assert.equal(result.stopReason, 'completed');
  assert.equal(budget.spent, 60);
});

test("V8's out-of-memory end of the worker is SCRIPT_MEMORY; running children are cancelled naming the limit", async () => {
  const worker = new FakeWorker();
  const { run, fake, events } = hostRun(worker, { respond: () => undefined });
  worker.emit('message', { tag: WorkerMessage.Ready, payload: {} });
  await worker.posted(1);
  worker.emit('message', started);
  worker.emit('message', agentStart(1));
  await fake.started(1);
  const outOfMemory = Object.assign(new Error('Worker terminated due to reaching memory limit'), {
    code: 'ERR_WORKER_OUT_OF_MEMORY',
  });
  worker.emit('error', outOfMemory);
  worker.emit('exit', 1);
  const result = await run.result;
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'SCRIPT_MEMORY');
  assert.match(result.error?.message ?? '', /memory limit of 256 MB \(maxScriptMemoryMb\)/);
  assert.match(fake.children[0]?.cancelledBy ?? '', /maxScriptMemoryMb/);
  assert.deepEqual(pairViolations(events.records), []);
});

test("maxRunMs counts from the worker's started, not from go: loading the engine is not the script's time", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const worker = new FakeWorker();
  const { run, fake } = hostRun(worker, { respond: () => undefined, limits: { maxRunMs: 300 } });
  worker.emit('message', { tag: WorkerMessage.Ready, payload: {} });
  await worker.posted(1);
  // Ten limits' worth of engine loading after `go`: no time limit yet.
  t.mock.timers.tick(3000);
  assert.equal(worker.posts.length, 1, 'nothing but go was sent');
  worker.emit('message', started);
  worker.emit('message', agentStart(1));
  await fake.started(1);
  t.mock.timers.tick(299);
  assert.equal(worker.posts.length, 1, 'the limit has not passed yet');
  t.mock.timers.tick(1);
  await worker.posted(2);
  assert.deepEqual(worker.posts[1], {
    tag: HostMessage.Cancel,
    payload: { reason: 'the workflow run reached its time limit of 300 ms (maxRunMs)' },
  });
  worker.emit('message', { tag: WorkerMessage.Done, payload: { kind: 'ok', value: null } });
  t.mock.timers.tick(60_000);
  const result = await run.result;
  assert.equal(result.error?.code, 'RUN_TIMEOUT', result.error?.message);
  assert.match(fake.children[0]?.cancelledBy ?? '', /maxRunMs/);
});

test('a hook message before started, or a second started, is a protocol fault', async () => {
  for (const [messages, fault] of [
    [[agentStart(1)], /sent agent-start before started/],
    [[started, started], /sent started twice/],
  ] as const) {
    const worker = new FakeWorker();
    const { run } = hostRun(worker);
    worker.emit('message', { tag: WorkerMessage.Ready, payload: {} });
    await worker.posted(1);
    for (const message of messages) worker.emit('message', message);
    const result = await run.result;
    assert.equal(result.stopReason, 'error');
    assert.match(result.error?.message ?? '', fault);
  }
});
