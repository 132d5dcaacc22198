/**
 * Children on `loom worker` processes through BullMQ (a local `redis-server`): the throughput of
 * a 200-agent workflow of instant children with 1, 2 and 4 workers, and the dispatch overhead
 * per child: in a fan-out (16 at once), the slope of a queued run's extra time over a local run's
 * between 100 and 400 children (what a run pays once, such as connecting, is reported apart),
 * and the latency a child gains when children run one at a time (`--max-concurrent 1`).
 * Whole `bin/loom` processes, as a user runs them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startRedis } from '../test/helpers/redis-server.js';
import { temporaryFolder } from '../test/helpers/temporary-folder.js';
import type { BenchRow } from './run.js';

const LOOM = resolve('bin/loom');
const THROUGHPUT_AGENTS = 200;
const SEQUENTIAL_AGENTS = 40;
const FAN_SMALL = 100;
const FAN_LARGE = 400;

interface Farm {
  url: string;
  queue: string;
}

function home(farm: Farm): string {
  const folder = temporaryFolder('loom-bench-farm-');
  writeFileSync(
    join(folder, 'config.yaml'),
    `subagents:\n  providers:\n    farm:\n      type: queue\n      redis: { urlEnv: LOOM_BENCH_REDIS_URL }\n      queue: ${farm.queue}\n`,
  );
  return folder;
}

function environment(farm: Farm, folder: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOOM_HOME: folder,
    LOOM_BENCH_REDIS_URL: farm.url,
    DEEPSEEK_API_KEY: '',
    LOOM_MODEL: '',
  };
}

async function startWorkers(farm: Farm, count: number, cwd: string) {
  const workers = Array.from({ length: count }, () => {
    const folder = home(farm);
    // The worker's default model; every job names the parent's model anyway.
    const model = join(folder, 'worker-model.json');
    writeFileSync(model, JSON.stringify({ default: { reply: 'ok' } }));
    return spawn(
      process.execPath,
      [
        LOOM,
        'worker',
        '--provider',
        'farm',
        '--cwd',
        cwd,
        '--concurrency',
        '16',
        '--model',
        `scripted:${model}`,
      ],
      { env: environment(farm, folder), stdio: ['ignore', 'ignore', 'pipe'] },
    );
  });
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((ready, fail) => {
          let text = '';
          worker.stderr.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes('worker ready')) ready();
          });
          worker.once('exit', (code) => fail(new Error(`a worker exited (${code}): ${text}`)));
        }),
    ),
  );
  return {
    async stop() {
      for (const worker of workers) worker.kill('SIGTERM');
      await Promise.all(
        workers.map((worker) =>
          worker.exitCode === null ? new Promise((done) => worker.once('exit', done)) : undefined,
        ),
      );
    },
  };
}

/** Wall milliseconds of one `loom workflow run` of `agents` instant children. */
function runMs(farm: Farm, cwd: string, agents: number, remote: boolean, concurrency: number) {
  const folder = home(farm);
  const script = join(folder, 'items.js');
  writeFileSync(
    script,
    `return parallel(Array.from({ length: ${agents} }, (_, index) => () => agent('item ' + index)));`,
  );
  const model = join(folder, 'model.json');
  writeFileSync(model, JSON.stringify({ default: { reply: 'ok' } }));
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [
      LOOM,
      'workflow',
      'run',
      script,
      '--meta',
      JSON.stringify({ name: 'bench', description: 'instant children' }),
      '--model',
      `scripted:${model}`,
      '--max-concurrent',
      String(concurrency),
      '--json',
      ...(remote ? ['--provider', 'farm'] : []),
    ],
    { env: environment(farm, folder), cwd, encoding: 'utf8' },
  );
  const elapsed = performance.now() - started;
  if (run.status !== 0) throw new Error(`the bench run failed (${run.status}): ${run.stderr}`);
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export default async function queueBench(): Promise<BenchRow[]> {
  const redis = await startRedis();
  const cwd = temporaryFolder('loom-bench-farm-work-');
  const rows: BenchRow[] = [];
  try {
    let queue = 0;
    const farm = (): Farm => {
      queue += 1;
      return { url: redis.url, queue: `bench-${process.pid}-${queue}` };
    };
    for (const count of [1, 2, 4]) {
      const shared = farm();
      const workers = await startWorkers(shared, count, cwd);
      try {
        runMs(shared, cwd, 20, true, 32);
        const milliseconds = median(
          [1, 2, 3].map(() => runMs(shared, cwd, THROUGHPUT_AGENTS, true, 64)),
        );
        rows.push({
          name: `queue: ${THROUGHPUT_AGENTS} instant children over ${count} worker${count > 1 ? 's' : ''} (whole run)`,
          value: (THROUGHPUT_AGENTS / milliseconds) * 1000,
          unit: 'children/s',
        });
      } finally {
        await workers.stop();
      }
    }
    const shared = farm();
    const workers = await startWorkers(shared, 1, cwd);
    try {
      runMs(shared, cwd, 20, true, 16);
      // The extra time of a queued run over a local one grows with its children; its slope
      // between two sizes is the cost per child, without what a run pays once (Redis
      // connections, the event stream).
      const extra = (agents: number) =>
        median([1, 2, 3].map(() => runMs(shared, cwd, agents, true, 16))) -
        median([1, 2, 3].map(() => runMs(shared, cwd, agents, false, 16)));
      const small = extra(FAN_SMALL);
      const large = extra(FAN_LARGE);
      const perChild = (large - small) / (FAN_LARGE - FAN_SMALL);
      rows.push(
        {
          name: `queue: dispatch overhead per child in a fan-out (16 at once, 1 worker; slope of queued minus local between ${FAN_SMALL} and ${FAN_LARGE} children)`,
          value: perChild,
          unit: 'ms',
          target: '< 2 ms',
          ok: perChild < 2,
        },
        {
          name: `queue: what a queued run pays once (queued minus local at ${FAN_SMALL} children, minus ${FAN_SMALL} x the cost per child)`,
          value: small - perChild * FAN_SMALL,
          unit: 'ms',
        },
      );
      runMs(shared, cwd, 5, true, 1);
      const remote = median([1, 2, 3].map(() => runMs(shared, cwd, SEQUENTIAL_AGENTS, true, 1)));
      const local = median([1, 2, 3].map(() => runMs(shared, cwd, SEQUENTIAL_AGENTS, false, 1)));
      const overhead = (remote - local) / SEQUENTIAL_AGENTS;
      rows.push(
        {
          name: `queue: ${SEQUENTIAL_AGENTS} children one at a time, local`,
          value: local,
          unit: 'ms',
        },
        {
          name: `queue: ${SEQUENTIAL_AGENTS} children one at a time, through the queue`,
          value: remote,
          unit: 'ms',
        },
        {
          name: 'queue: dispatch overhead per child (queued minus local, one at a time)',
          value: overhead,
          unit: 'ms',
          target: '< 2 ms',
          ok: overhead < 2,
        },
      );
    } finally {
      await workers.stop();
    }
  } finally {
    await redis.stop();
  }
  return rows;
}
