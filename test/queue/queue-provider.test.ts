/**
 * The `queue` subagent provider against a real redis-server, with a BullMQ Worker written here
 * standing in for `loom worker` (it follows src/queue/contract.ts): answers, failures,
 * re-attaching by idempotency key, cancel of waiting and running jobs, and the refusals.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { Job } from 'bullmq';
import {
  type ChildJobData,
  type ChildJobProgress,
  type ChildJobResult,
  cancelChannel,
  childJobId,
} from '../../src/queue/contract.js';
import { createQueueProvider, type QueueProvider } from '../../src/queue/queue-provider.js';
import { withoutSecret } from '../../src/queue/redis-connection.js';
import type { SubagentActivity, SubagentUsageReport } from '../../src/subagent/contract.js';
import { installSubagents } from '../../src/subagent/install.js';
import { createScriptedModel } from '../../src/testing/index.js';
import { deferred } from '../helpers/deferred.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

// BullMQ's ESM build has directory imports Node refuses: loaded as CommonJS, like Loom does.
const require = createRequire(import.meta.url);
const { Queue, UnrecoverableError, Worker } = require('bullmq') as typeof import('bullmq');
const { Redis } = require('ioredis') as typeof import('ioredis');
type Queue = import('bullmq').Queue;

const VARIABLE = 'LOOM_TEST_QUEUE_REDIS';
const parent = { sessionId: null, delegationDepth: 0 };
/** A broken provider hangs rather than fails: each test is bounded (each takes milliseconds). */
const limit = { timeout: 10_000 };

let redis: RedisServer;
let queueCount = 0;
const closers: Array<() => Promise<unknown>> = [];

before(async () => {
  redis = await startRedis();
});

after(async () => {
  for (const close of closers.reverse()) await close();
  await redis.stop();
});

function freshQueue(): string {
  queueCount += 1;
  return `test-${process.pid}-${queueCount}`;
}

function provider(queue: string, env: Record<string, string> = { [VARIABLE]: redis.url }) {
  const made: QueueProvider = createQueueProvider({
    name: 'remote',
    config: { type: 'queue', redis: { urlEnv: VARIABLE }, queue, attempts: 2 },
    cwd: process.cwd(),
    env,
    connectTimeoutMs: 2000,
  });
  closers.push(() => made.close());
  return made;
}

function plainQueue(queue: string): Queue {
  const made = new Queue(queue, { connection: { url: redis.url } });
  closers.push(() => made.close());
  return made;
}

/** A BullMQ worker on `queue` that runs `work` for each job and counts them. */
function standInWorker(
  queue: string,
  work: (job: Job<ChildJobData, ChildJobResult>) => Promise<ChildJobResult>,
) {
  const jobs: Job<ChildJobData, ChildJobResult>[] = [];
  const worker = new Worker<ChildJobData, ChildJobResult>(
    queue,
    (job) => {
      jobs.push(job);
      return work(job);
    },
    { connection: { url: redis.url, maxRetriesPerRequest: null } },
  );
  // Forced: a job a broken provider never ends must not hold the file open.
  closers.push(() => worker.close(true));
  return { worker, jobs };
}

function answer(job: Job<ChildJobData>, output: string, extra: Partial<ChildJobResult> = {}) {
  return {
    output,
    stopReason: 'completed' as const,
    sessionId: `session-of-${job.id}`,
    usage: { input: 10, output: 5 },
    worker: 'test:1',
    ...extra,
  };
}

async function progress(job: Job, data: ChildJobProgress): Promise<void> {
  await job.updateProgress(data);
}

test(
  'a queued child completes with its output, structured value and usage; activity and usage reach the caller',
  limit,
  async () => {
    const queue = freshQueue();
    const queued = deferred();
    const { jobs } = standInWorker(queue, async (job) => {
      await queued.promise;
      await progress(job, { kind: 'started', worker: 'test:1', sessionId: 'remote-session' });
      // Messages that came while a write was out arrive together, in order.
      await job.updateProgress([
        { kind: 'activity', activity: 'request' },
        { kind: 'activity', activity: 'output' },
      ]);
      await progress(job, {
        kind: 'usage',
        usage: { input: 10, output: 5 },
        model: 'scripted:worker',
      });
      await progress(job, { kind: 'activity', activity: 'answered' });
      return answer(job, '{"verdict":"fine"}', { structured: { verdict: 'fine' } });
    });
    const activities: SubagentActivity[] = [];
    const usages: SubagentUsageReport[] = [];
    const run = provider(queue).start({
      parent,
      prompt: 'review src/a.ts',
      description: 'review a',
      model: 'scripted:worker',
      outputSchema: {
        type: 'object',
        properties: { verdict: { type: 'string' } },
        required: ['verdict'],
      },
      toolFilter: ['workflow'],
      instructions: 'answer briefly',
      onActivity: (activity) => {
        activities.push(activity);
        queued.resolve();
      },
      onUsage: (report) => usages.push(report),
    });
    assert.match(run.id, /^child-[0-9a-f]{32}$/);
    const result = await run.result;
    assert.deepEqual(result, {
      output: '{"verdict":"fine"}',
      structured: { verdict: 'fine' },
      stopReason: 'completed',
      sessionId: `session-of-${run.id}`,
      usage: { input: 10, output: 5 },
    });
    // Queued first (no model to wait on), then the worker's reports in order.
    assert.deepEqual(activities, ['answered', 'request', 'output', 'answered']);
    assert.deepEqual(usages, [{ usage: { input: 10, output: 5 }, model: 'scripted:worker' }]);
    assert.equal(jobs.length, 1);
    const [job] = jobs;
    assert.equal(job?.id, run.id);
    assert.equal(job?.name, 'child');
    assert.equal(job?.opts.attempts, 2);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    assert.deepEqual(job?.data, {
      version: 1,
      prompt: 'review src/a.ts',
      description: 'review a',
      model: 'scripted:worker',
      outputSchema: {
        type: 'object',
        properties: { verdict: { type: 'string' } },
        required: ['verdict'],
      },
      toolFilter: ['workflow'],
      instructions: 'answer briefly',
      parentDepth: 0,
      revision: head,
    });
  },
);

test(
  'a job that fails for good settles error with the failed reason, also for a provider re-attaching to it',
  limit,
  async () => {
    const queue = freshQueue();
    const { jobs } = standInWorker(queue, async () => {
      throw new UnrecoverableError('WORKSPACE_MISMATCH: the job wants abc, this worker has def');
    });
    const request = { parent, prompt: 'p', idempotencyKey: 'workflow-3/check/0' };
    const result = await provider(queue).start(request).result;
    assert.equal(result.stopReason, 'error');
    assert.match(
      result.diagnostic ?? '',
      /queue provider remote \(queue test-.*\): job child-\w+ failed: WORKSPACE_MISMATCH: the job wants abc, this worker has def/,
    );
    assert.equal(jobs.length, 1, 'an unrecoverable failure is not retried');
    assert.deepEqual(await provider(queue).start(request).result, result);
    assert.equal(jobs.length, 1);
  },
);

test(
  'a second provider with the same idempotency key answers from the completed job without a new one',
  limit,
  async () => {
    const queue = freshQueue();
    const key = 'workflow-1/review:a/0';
    const { jobs } = standInWorker(queue, async (job) => answer(job, `answer ${jobs.length}`));
    const first = provider(queue).start({ parent, prompt: 'p', idempotencyKey: key });
    assert.equal(first.id, childJobId(key));
    const firstResult = await first.result;
    assert.equal(firstResult.output, 'answer 1');
    assert.equal(jobs[0]?.data.runId, 'workflow-1');

    const second = provider(queue).start({ parent, prompt: 'p', idempotencyKey: key });
    assert.equal(second.id, first.id);
    assert.deepEqual(await second.result, firstResult);
    assert.equal(jobs.length, 1, 'the finished child ran once');
    const counts = await plainQueue(queue).getJobCounts(
      'waiting',
      'active',
      'delayed',
      'completed',
    );
    assert.deepEqual(counts, { waiting: 0, active: 0, delayed: 0, completed: 1 });
  },
);

test(
  'a second provider re-attaches to a job still queued and both hear its one answer',
  limit,
  async () => {
    const queue = freshQueue();
    const key = 'workflow-2/review:b/0';
    const firstQueued = deferred();
    const secondAttached = deferred();
    const first = provider(queue).start({
      parent,
      prompt: 'p',
      idempotencyKey: key,
      onActivity: () => firstQueued.resolve(),
    });
    await firstQueued.promise;
    const second = provider(queue).start({
      parent,
      prompt: 'p',
      idempotencyKey: key,
      onActivity: (activity) => {
        if (activity === 'answered') secondAttached.resolve();
      },
    });
    await secondAttached.promise;
    const running = deferred();
    const release = deferred();
    const { jobs } = standInWorker(queue, async (job) => {
      running.resolve();
      await release.promise;
      return answer(job, 'the one answer');
    });
    await running.promise;
    release.resolve();
    const [firstResult, secondResult] = await Promise.all([first.result, second.result]);
    assert.equal(firstResult.output, 'the one answer');
    assert.deepEqual(secondResult, firstResult);
    assert.equal(jobs.length, 1);
  },
);

test(
  'cancelling a waiting child removes its job and settles cancelled at once',
  limit,
  async () => {
    const queue = freshQueue();
    const queued = deferred();
    const run = provider(queue).start({ parent, prompt: 'p', onActivity: () => queued.resolve() });
    await queued.promise;
    const plain = plainQueue(queue);
    assert.equal(await plain.getJobState(run.id), 'waiting');
    run.cancel('not needed any more');
    const result = await run.result;
    assert.equal(result.stopReason, 'cancelled');
    assert.equal(result.diagnostic, 'not needed any more');
    assert.equal(await plain.getJobState(run.id), 'unknown');
    const counts = await plain.getJobCounts();
    assert.ok(
      Object.values(counts).every((count) => count === 0),
      `no job left: ${JSON.stringify(counts)}`,
    );
  },
);

test(
  'a child cancelled before it looked at its queue settles at once: it queues nothing, and a job it would re-attach to is removed',
  limit,
  async () => {
    const queue = freshQueue();
    const plain = plainQueue(queue);
    const early = provider(queue).start({ parent, prompt: 'p' });
    early.cancel('changed my mind');
    assert.deepEqual(await early.result, {
      output: '',
      stopReason: 'cancelled',
      diagnostic: 'changed my mind',
      sessionId: early.id,
      usage: { input: 0, output: 0 },
    });
    assert.equal(await plain.getJobState(early.id), 'unknown');

    const key = 'workflow-4/review:c/0';
    const queued = deferred();
    const first = provider(queue).start({
      parent,
      prompt: 'p',
      idempotencyKey: key,
      onActivity: () => queued.resolve(),
    });
    await queued.promise;
    const second = provider(queue).start({ parent, prompt: 'p', idempotencyKey: key });
    second.cancel('the resumed run was cancelled');
    assert.equal((await second.result).stopReason, 'cancelled');
    const firstResult = await first.result;
    assert.equal(firstResult.stopReason, 'error');
    assert.match(firstResult.diagnostic ?? '', /was removed from the queue before it ended/);
    assert.equal(await plain.getJobState(first.id), 'unknown');
    const counts = await plain.getJobCounts();
    assert.ok(
      Object.values(counts).every((count) => count === 0),
      JSON.stringify(counts),
    );
  },
);

test(
  "aborting the request's signal cancels the child with the signal's reason",
  limit,
  async () => {
    const queue = freshQueue();
    const queued = deferred();
    const controller = new AbortController();
    const run = provider(queue).start({
      parent,
      prompt: 'p',
      signal: controller.signal,
      onActivity: () => queued.resolve(),
    });
    await queued.promise;
    controller.abort('the workflow was cancelled');
    const result = await run.result;
    assert.equal(result.stopReason, 'cancelled');
    assert.equal(result.diagnostic, 'the workflow was cancelled');
    assert.equal(await plainQueue(queue).getJobState(run.id), 'unknown');
  },
);

test(
  'cancelling a running child publishes its job id on the cancel channel and settles cancelled when the job ends',
  limit,
  async () => {
    const queue = freshQueue();
    const subscriber = new Redis(redis.url);
    closers.push(() => subscriber.quit());
    const controllers = new Map<string, AbortController>();
    const published: Array<[string, string]> = [];
    subscriber.on('message', (channel: string, jobId: string) => {
      published.push([channel, jobId]);
      controllers.get(jobId)?.abort();
    });
    await subscriber.subscribe(cancelChannel(queue));
    const running = deferred();
    standInWorker(queue, async (job) => {
      const controller = new AbortController();
      controllers.set(job.id ?? '', controller);
      running.resolve();
      await new Promise((resolve) => controller.signal.addEventListener('abort', resolve));
      return answer(job, 'partial', {
        stopReason: 'cancelled',
        diagnostic: 'the parent cancelled this subagent',
      });
    });
    const run = provider(queue).start({ parent, prompt: 'p' });
    await running.promise;
    run.cancel('enough');
    const result = await run.result;
    assert.equal(result.stopReason, 'cancelled');
    assert.equal(result.diagnostic, 'enough');
    assert.equal(result.output, 'partial');
    assert.deepEqual(published, [[cancelChannel(queue), run.id]]);
    assert.equal(await plainQueue(queue).getJobState(run.id), 'completed');
  },
);

test(
  'an unset Redis variable fails the child with QUEUE_UNAVAILABLE naming it, and queues nothing',
  limit,
  async () => {
    const queue = freshQueue();
    const run = provider(queue, {}).start({ parent, prompt: 'p' });
    await assert.rejects(run.result, (error: Error & { code?: string }) => {
      assert.equal(error.code, 'QUEUE_UNAVAILABLE');
      assert.match(error.message, /queue provider remote/);
      assert.match(error.message, new RegExp(`environment variable ${VARIABLE} .*is not set`));
      return true;
    });
    const client = new Redis(redis.url);
    closers.push(() => client.quit());
    assert.deepEqual(await client.keys(`bull:${queue}:*`), []);
  },
);

test(
  'an unreachable Redis fails the child soon, naming provider and queue but never the URL',
  limit,
  async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const url = `redis://:s3cret-Passw0rd@127.0.0.1:${port}`;
    const queue = freshQueue();
    const run = provider(queue, { [VARIABLE]: url }).start({ parent, prompt: 'p' });
    await assert.rejects(run.result, (error: Error & { code?: string }) => {
      assert.equal(error.code, 'QUEUE_UNAVAILABLE');
      assert.match(error.message, new RegExp(`queue provider remote \\(queue ${queue}\\)`));
      assert.match(error.message, new RegExp(VARIABLE));
      assert.doesNotMatch(error.message, /s3cret-Passw0rd/);
      assert.ok(!error.message.includes(url));
      assert.ok(!String(error.stack).includes('s3cret-Passw0rd'));
      return true;
    });
  },
);

test(
  'a server that never answers fails the child after the connect time limit instead of hanging',
  limit,
  async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const queue = freshQueue();
    const made = createQueueProvider({
      name: 'remote',
      config: { type: 'queue', redis: { urlEnv: VARIABLE }, queue },
      cwd: process.cwd(),
      env: { [VARIABLE]: `redis://127.0.0.1:${port}` },
      connectTimeoutMs: 200,
    });
    closers.push(() => made.close());
    await assert.rejects(
      made.start({ parent, prompt: 'p' }).result,
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'QUEUE_UNAVAILABLE');
        assert.match(
          error.message,
          /cannot reach Redis \(the URL in LOOM_TEST_QUEUE_REDIS\): no answer within 200 ms/,
        );
        return true;
      },
    );
  },
);

test('a driver message is scrubbed of the URL and of its password', limit, () => {
  const url = 'redis://loom:p%40ss@redis.example:6380/2';
  assert.equal(
    withoutSecret(`WRONGPASS for loom p@ss at ${url}`, url),
    'WRONGPASS for loom *** at ***',
  );
  assert.equal(withoutSecret('connect ECONNREFUSED', 'not a url'), 'connect ECONNREFUSED');
});

test(
  'a continuable child, an unsupported schema and a passed depth limit are refused before anything is queued',
  limit,
  () => {
    const made = provider(freshQueue(), {});
    assert.throws(
      () => made.start({ parent, prompt: 'p', continuable: true }),
      (error: Error & { code?: string }) =>
        error.code === 'UNSUPPORTED_CAPABILITY' && /remote/.test(error.message),
    );
    assert.throws(
      () => made.start({ parent, prompt: 'p', outputSchema: { type: 'object', $ref: '#/x' } }),
      (error: Error & { code?: string }) => error.code === 'UNSUPPORTED_SCHEMA',
    );
    assert.throws(
      () => made.start({ parent, prompt: 'p', maxDepth: 0 }),
      (error: Error & { code?: string }) => error.code === 'DEPTH_LIMIT',
    );
    assert.deepEqual(made.capabilities, {
      outputSchema: true,
      depthLimit: true,
      toolFilter: true,
      persona: true,
      inheritsParentContext: false,
      activity: true,
      workspace: false,
    });
  },
);

test('a process whose queued child is done exits once the subagent layer is disposed', {
  timeout: 20_000,
}, async () => {
  const queue = freshQueue();
  standInWorker(queue, async (job) => answer(job, `done: ${job.data.prompt}`));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/queue/fixtures/one-queued-child.ts', queue],
    { env: { ...process.env, [VARIABLE]: redis.url }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // Only for a broken provider that keeps the process alive: the file must still end.
  closers.push(async () => {
    child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  assert.equal(JSON.parse(output).output, 'done: from a process');
});

test('installSubagents registers the queue providers of config', limit, () => {
  const runtime = runtimeOver(
    createScriptedModel({ rules: [] }, { name: 'test' }),
    temporaryFolder('loom-queue-'),
  );
  const layer = installSubagents(runtime, {
    providers: { remote: { type: 'queue', redis: { urlEnv: VARIABLE } } },
  });
  assert.ok(layer.services.registry.names().includes('remote'));
  assert.equal(layer.services.registry.get('remote').capabilities.outputSchema, true);
  layer.dispose();
  assert.ok(!layer.services.registry.names().includes('remote'));
});
