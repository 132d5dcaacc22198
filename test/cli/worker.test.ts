/**
 * `loom worker` and `loom worker status` through bin/loom (build first), against a real
 * redis-server: a worker takes a job added with a plain BullMQ Queue, shows in status with its
 * running child, and stops on SIGTERM; a bad provider or a missing Redis variable exits 2.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Queue, QueueEvents } from 'bullmq';
import {
  CHILD_JOB_VERSION,
  type ChildJobData,
  type ChildJobProgress,
  type ChildJobResult,
  cancelChannel,
} from '../../src/queue/contract.js';
import type { QueueStatus } from '../../src/queue/queue-status.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { runLoom, type ScriptedFolders, scriptedFolders, startLoom } from './loom-process.js';

const bullmq = createRequire(import.meta.url)('bullmq') as typeof import('bullmq');
const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

const QUEUE = 'cli-worker-test';

function jobData(prompt: string, description: string): ChildJobData {
  return { version: CHILD_JOB_VERSION, prompt, description, parentDepth: 0, revision: null };
}

describe('loom worker', () => {
  let redis: RedisServer;
  let folders: ScriptedFolders;
  const env = () => ({ LOOM_TEST_REDIS: redis.url });

  before(async () => {
    redis = await startRedis();
    folders = scriptedFolders({
      rules: [
        { when: '^greet', reply: 'hello from loom worker', usage: { input: 4, output: 2 } },
        { when: '^hang', hang: true },
      ],
    });
    writeFileSync(
      join(folders.home, 'config.yaml'),
      [
        'subagents:',
        '  providers:',
        '    remote: { type: queue, redis: { urlEnv: LOOM_TEST_REDIS }, queue: cli-worker-test }',
        '    spare: { type: queue, redis: { urlEnv: LOOM_TEST_REDIS } }',
        '    editor: { type: acp }',
        '',
      ].join('\n'),
    );
  });
  after(() => redis.stop());

  it('takes a job, shows in status with its running child, and stops on SIGTERM', async () => {
    const worker = startLoom(
      [
        'worker',
        '--provider',
        'remote',
        '--cwd',
        folders.workspace,
        '--model',
        `scripted:${folders.model}`,
        '--concurrency',
        '2',
      ],
      { home: folders.home, env: env() },
    );
    const connection = { host: '127.0.0.1', port: redis.port };
    const queue: Queue = new bullmq.Queue(QUEUE, { connection });
    const events: QueueEvents = new bullmq.QueueEvents(QUEUE, { connection });
    const publisher = new Redis(redis.url);
    try {
      await events.waitUntilReady();
      await worker.waitForStderr(/worker ready/);
      const job = await queue.add('child', jobData('greet', 'say hello'), { jobId: 'cli-greet' });
      const result = (await job.waitUntilFinished(events)) as ChildJobResult;
      assert.equal(result.stopReason, 'completed');
      assert.equal(result.output, 'hello from loom worker');
      assert.match(result.worker, new RegExp(`:${worker.child.pid}$`));

      const started = new Promise<void>((resolve) =>
        events.on('progress', ({ jobId, data }) => {
          if (jobId === 'cli-hang' && (data as ChildJobProgress).kind === 'started') resolve();
        }),
      );
      const hanging = await queue.add(
        'child',
        { ...jobData('hang', 'wait forever'), runId: 'run-1' },
        { jobId: 'cli-hang' },
      );
      await started;
      const status = await runLoom(
        ['worker', 'status', '--provider', 'remote', '--cwd', folders.workspace, '--json'],
        { home: folders.home, env: env() },
      );
      assert.equal(status.code, 0, status.stderr);
      const parsed = JSON.parse(status.stdout) as QueueStatus;
      assert.equal(parsed.queue, QUEUE);
      assert.deepEqual(parsed.counts, {
        waiting: 0,
        active: 1,
        delayed: 0,
        completed: 1,
        failed: 0,
      });
      assert.deepEqual(
        parsed.workers.map((entry) => entry.name),
        [result.worker],
      );
      assert.equal(parsed.running.length, 1);
      assert.deepEqual(
        { ...parsed.running[0], ageMs: undefined },
        {
          jobId: 'cli-hang',
          label: 'wait forever',
          runId: 'run-1',
          worker: result.worker,
          ageMs: undefined,
        },
      );

      await publisher.publish(cancelChannel(QUEUE), 'cli-hang');
      const cancelled = (await hanging.waitUntilFinished(events)) as ChildJobResult;
      assert.equal(cancelled.stopReason, 'cancelled');
      worker.child.kill('SIGTERM');
      const { code } = await worker.exited;
      assert.equal(code, 143, worker.stderr());
      const lines = worker.stderr().split('\n');
      assert.ok(lines.includes('job cli-greet: started say hello'), worker.stderr());
      assert.ok(lines.some((line) => /^job cli-greet: completed in /.test(line)));
      assert.ok(lines.some((line) => /^job cli-hang: cancelled in /.test(line)));
      assert.ok(lines.includes('loom: worker stopped'), worker.stderr());
      assert.ok(!worker.stderr().includes(redis.url), 'the Redis URL is never printed');
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      publisher.disconnect();
      await events.close();
      await queue.close();
    }
  });

  it('status in plain text names the queue, its counts and no workers', async () => {
    const status = await runLoom(
      ['worker', 'status', '--provider', 'spare', '--cwd', folders.workspace],
      {
        home: folders.home,
        env: env(),
      },
    );
    assert.equal(status.code, 0, status.stderr);
    assert.match(
      status.stdout,
      /^queue loom-spare: 0 waiting, 0 active, 0 delayed, 0 completed, 0 failed$/m,
    );
    assert.match(status.stdout, /^workers: none connected$/m);
  });

  it('exits 2 naming the queue providers for a provider that is not one', async () => {
    for (const name of ['nowhere', 'editor']) {
      const run = await runLoom(['worker', '--provider', name, '--cwd', folders.workspace], {
        home: folders.home,
        env: env(),
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /the queue providers of config: remote, spare/);
    }
  });

  it('exits 2 naming the Redis variable when it is not set', async () => {
    for (const args of [['worker'], ['worker', 'status']]) {
      const run = await runLoom([...args, '--provider', 'remote', '--cwd', folders.workspace], {
        home: folders.home,
        env: { LOOM_TEST_REDIS: '' },
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /the environment variable LOOM_TEST_REDIS \(the Redis URL\) is not set/,
      );
    }
  });

  it('exits 1 with QUEUE_UNAVAILABLE naming the variable, never the URL, when Redis is unreachable', async () => {
    // Port 1 on loopback refuses at once; the URL carries a password that must not show.
    const unreachable = { LOOM_TEST_REDIS: 'redis://loom:not-for-logs@127.0.0.1:1' };
    for (const args of [
      ['worker', '--model', `scripted:${folders.model}`],
      ['worker', 'status'],
    ]) {
      const run = await runLoom([...args, '--provider', 'remote', '--cwd', folders.workspace], {
        home: folders.home,
        env: unreachable,
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(
        run.stderr,
        /QUEUE_UNAVAILABLE: queue provider remote \(queue cli-worker-test\): cannot reach Redis \(the URL in LOOM_TEST_REDIS\): ECONNREFUSED/,
      );
      assert.ok(!run.stderr.includes('not-for-logs'), run.stderr);
      assert.ok(!run.stderr.includes('127.0.0.1:1'), run.stderr);
    }
  });
});
