/**
 * The worker side of the queue: a real redis-server, jobs added with a plain BullMQ Queue as the
 * queue provider would, and `startChildWorker` running them over a runtime whose model is
 * scripted. Each test uses its own queue, so workers never take each other's jobs.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it, test } from 'node:test';
import type { Job, Queue, QueueEvents } from 'bullmq';
import { buildRuntime, type LoomSetup } from '../../src/cli/build-runtime.js';
import { type ChildWorker, stallOptions, startChildWorker } from '../../src/queue/child-worker.js';
import {
  CHILD_JOB_VERSION,
  type ChildJobData,
  type ChildJobProgress,
  type ChildJobResult,
  cancelChannel,
  progressMessages,
  type QueueProviderConfig,
} from '../../src/queue/contract.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const bullmq = createRequire(import.meta.url)('bullmq') as typeof import('bullmq');
const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

const model = {
  rules: [
    { when: '^greet', reply: 'hello from the worker', usage: { input: 11, output: 7 } },
    { when: '^structured', output: { answer: 42 }, usage: { input: 5, output: 3 } },
    { when: '^hang', hang: true },
  ],
};

function jobData(prompt: string, more: Partial<ChildJobData> = {}): ChildJobData {
  return { version: CHILD_JOB_VERSION, prompt, parentDepth: 0, revision: null, ...more };
}

describe('child worker', () => {
  let redis: RedisServer;
  let setup: LoomSetup;
  let queueCount = 0;
  const lines: string[] = [];
  const env = (): NodeJS.ProcessEnv => ({ TEST_REDIS_URL: redis.url });

  before(async () => {
    redis = await startRedis();
    const home = temporaryFolder();
    setup = buildRuntime({
      cwd: temporaryFolder(),
      home,
      model: `scripted:${writeScriptedModel(home, model)}`,
    });
  });
  after(async () => {
    setup.workflow.dispose();
    setup.subagents.dispose();
    await redis.stop();
  });

  /** A worker on a fresh queue, with a Queue and QueueEvents on it; `close` ends all three. */
  async function harness(more: { anyRevision?: boolean; attempts?: number } = {}) {
    queueCount += 1;
    const config: QueueProviderConfig = {
      type: 'queue',
      redis: { urlEnv: 'TEST_REDIS_URL' },
      queue: `worker-test-${queueCount}`,
      ...(more.attempts !== undefined ? { attempts: more.attempts } : {}),
    };
    const worker: ChildWorker = await startChildWorker({
      name: 'remote',
      config,
      registry: setup.subagents.services.registry,
      cwd: setup.runtime.cwd,
      env: env(),
      log: (line) => lines.push(line),
      ...(more.anyRevision ? { anyRevision: true } : {}),
    });
    const connection = { host: '127.0.0.1', port: redis.port };
    const queue: Queue = new bullmq.Queue(worker.queue, { connection });
    const events: QueueEvents = new bullmq.QueueEvents(worker.queue, { connection });
    await events.waitUntilReady();
    const progress = new Map<string, ChildJobProgress[]>();
    events.on('progress', ({ jobId, data }) => {
      const list = progress.get(jobId) ?? [];
      list.push(...(progressMessages(data) as ChildJobProgress[]));
      progress.set(jobId, list);
    });
    const add = (id: string, data: ChildJobData): Promise<Job> =>
      queue.add('child', data, { jobId: id, attempts: more.attempts ?? 2 });
    const close = async () => {
      await worker.stop(0);
      await events.close();
      await queue.close();
    };
    return { worker, queue, events, progress, add, close };
  }

  it('runs a job: the scripted answer, its usage, and started, activity and usage progress', async () => {
    const { events, progress, add, close, worker } = await harness();
    try {
      const job = await add('child-greet', jobData('greet me', { description: 'a greeting' }));
      const result = (await job.waitUntilFinished(events)) as ChildJobResult;
      assert.equal(result.stopReason, 'completed');
      assert.equal(result.output, 'hello from the worker');
      assert.deepEqual(
        { input: result.usage.input, output: result.usage.output },
        { input: 11, output: 7 },
      );
      assert.equal(result.worker, worker.workerName);
      const updates = progress.get('child-greet') ?? [];
      assert.deepEqual(updates[0], {
        kind: 'started',
        worker: worker.workerName,
        sessionId: result.sessionId,
      });
      const kinds = updates.map((update) =>
        update.kind === 'activity' ? `activity:${update.activity}` : update.kind,
      );
      assert.ok(kinds.includes('activity:request'), kinds.join(' '));
      assert.ok(kinds.includes('activity:answered'), kinds.join(' '));
      const usage = updates.find((update) => update.kind === 'usage');
      assert.equal(usage?.kind === 'usage' && usage.usage.input, 11);
      assert.ok(lines.includes('job child-greet: started a greeting'), lines.join('\n'));
      assert.ok(
        lines.some((line) => /^job child-greet: completed in \d+\.\d s$/.test(line)),
        lines.join('\n'),
      );
    } finally {
      await close();
    }
  });

  it('returns the structured value of a child with an output schema', async () => {
    const { events, add, close } = await harness();
    try {
      const schema = {
        type: 'object',
        properties: { answer: { type: 'number' } },
        required: ['answer'],
      };
      const job = await add('child-schema', jobData('structured please', { outputSchema: schema }));
      const result = (await job.waitUntilFinished(events)) as ChildJobResult;
      assert.equal(result.stopReason, 'completed');
      assert.deepEqual(result.structured, { answer: 42 });
    } finally {
      await close();
    }
  });

  it('refuses a job of another revision with WORKSPACE_MISMATCH, without a retry', async () => {
    const { events, queue, add, close } = await harness({ attempts: 3 });
    try {
      const job = await add('child-other', jobData('greet me', { revision: 'a'.repeat(40) }));
      await assert.rejects(
        job.waitUntilFinished(events),
        /^Error: WORKSPACE_MISMATCH: .*aaaaaaaaaaaa.*no git checkout/,
      );
      const failed = await bullmq.Job.fromId(queue, 'child-other');
      assert.equal(await failed?.getState(), 'failed');
      assert.equal(failed?.attemptsMade, 1);
    } finally {
      await close();
    }
  });

  it('runs a job of another revision when started with anyRevision', async () => {
    const { events, add, close } = await harness({ anyRevision: true });
    try {
      const job = await add('child-any', jobData('greet me', { revision: 'b'.repeat(40) }));
      const result = (await job.waitUntilFinished(events)) as ChildJobResult;
      assert.equal(result.output, 'hello from the worker');
    } finally {
      await close();
    }
  });

  it('aborts a running child when its job id arrives on the cancel channel', async () => {
    const { events, add, close, worker } = await harness();
    const publisher = new Redis(redis.url);
    try {
      const started = new Promise<void>((resolve) =>
        events.on('progress', ({ jobId, data }) => {
          if (jobId === 'child-hang' && (data as ChildJobProgress).kind === 'started') resolve();
        }),
      );
      const job = await add('child-hang', jobData('hang forever'));
      await started;
      assert.deepEqual(worker.running(), ['child-hang']);
      await publisher.publish(cancelChannel(worker.queue), 'child-hang');
      const result = (await job.waitUntilFinished(events)) as ChildJobResult;
      assert.equal(result.stopReason, 'cancelled');
      assert.match(result.diagnostic ?? '', /cancelled/);
      assert.ok(
        lines.some((line) => /^job child-hang: cancelled in \d+\.\d s$/.test(line)),
        lines.join('\n'),
      );
    } finally {
      publisher.disconnect();
      await close();
    }
  });

  it('hands a running child back to the queue when it stops (one attempt spent)', async () => {
    const { events, queue, add, close, worker } = await harness();
    try {
      const started = new Promise<void>((resolve) =>
        events.on('progress', ({ jobId, data }) => {
          if (jobId === 'child-stop' && (data as ChildJobProgress).kind === 'started') resolve();
        }),
      );
      await add('child-stop', jobData('hang until the worker stops'));
      await started;
      await worker.stop(0);
      const job = await bullmq.Job.fromId(queue, 'child-stop');
      assert.equal(await job?.getState(), 'waiting');
      assert.equal(job?.attemptsMade, 1);
      assert.ok(
        lines.some((line) => /^job child-stop: handed back in \d+\.\d s/.test(line)),
        lines.join('\n'),
      );
    } finally {
      await close();
    }
  });
});

test('stallOptions: a lost worker is found after stalledMs, and hand-ons count against attempts', () => {
  const base = { type: 'queue', redis: { urlEnv: 'X' } } as const;
  assert.deepEqual(stallOptions(base), {
    lockDuration: 30_000,
    stalledInterval: 15_000,
    maxStalledCount: 1,
    maxStartedAttempts: 2,
  });
  assert.deepEqual(stallOptions({ ...base, stalledMs: 500, attempts: 1 }), {
    lockDuration: 500,
    stalledInterval: 250,
    maxStalledCount: 0,
    maxStartedAttempts: 1,
  });
});
