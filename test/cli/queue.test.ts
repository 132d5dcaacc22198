/**
 * A workflow's children on `loom worker` processes through BullMQ on a real `redis-server`, as a
 * user runs them: every process is `bin/loom`, each worker with its own LOOM_HOME and checkout.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { type LoomRun, runLoom, startLoom } from './loom-process.js';
import { agentPairs, parseResult, readEvents, writeFile, writeJson } from './workflow-fixture.js';

const URL_VARIABLE = 'LOOM_TEST_REDIS_URL';
const JOB_STARTED = /^job \S+: started/;
const COMPLETED_LINE = /^agent #\d+ completed/;

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

let queues = 0;

/** A LOOM_HOME whose config names the queue provider `farm` on a queue of its own test. */
function farmHome(queue: string, stalledMs?: number): string {
  const home = temporaryFolder('loom-farm-');
  const lines = [
    'subagents:',
    '  providers:',
    '    farm:',
    '      type: queue',
    '      redis: { urlEnv: LOOM_TEST_REDIS_URL }',
    `      queue: ${queue}`,
    ...(stalledMs ? [`      stalledMs: ${stalledMs}`] : []),
  ];
  writeFileSync(join(home, 'config.yaml'), `${lines.join('\n')}\n`);
  return home;
}

function newQueue(): string {
  queues += 1;
  return `test-${process.pid}-${queues}`;
}

function env(): NodeJS.ProcessEnv {
  return { [URL_VARIABLE]: redis.url, DEEPSEEK_API_KEY: '', LOOM_MODEL: '' };
}

/** A `loom worker` on `queue`, ready to take jobs. */
async function startWorker(
  queue: string,
  options: { cwd: string; stalledMs?: number; args?: string[] },
): Promise<LoomRun> {
  const home = farmHome(queue, options.stalledMs);
  // The worker's default model; every job here names the parent's model anyway.
  const model = writeJson(home, 'worker-model.json', {
    default: { error: 'no job names this model' },
  });
  const worker = startLoom(
    [
      'worker',
      '--provider',
      'farm',
      '--cwd',
      options.cwd,
      '--model',
      `scripted:${model}`,
      ...(options.args ?? []),
    ],
    { home, env: env() },
  );
  await worker.waitForStderr(/worker ready/);
  return worker;
}

async function stopWorkers(workers: LoomRun[]): Promise<void> {
  for (const worker of workers) {
    if (worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill('SIGTERM');
    }
  }
  await Promise.all(workers.map((worker) => worker.exited));
}

function jobsStarted(worker: LoomRun): number {
  return worker
    .stderr()
    .split('\n')
    .filter((line) => JOB_STARTED.test(line)).length;
}

const meta = JSON.stringify({ name: 'farm', description: 'children on workers' });

/** Starts `loom workflow run` of `script` in `home` (its cwd `cwd`), with `--json` and `--events`. */
function startRun(
  home: string,
  cwd: string,
  script: string,
  model: unknown,
  args: string[] = [],
): { loom: LoomRun; eventsPath: string } {
  const scriptPath = writeFile(home, `script-${queues}.js`, script);
  const modelPath = writeJson(home, `model-${queues}.json`, model);
  const eventsPath = join(home, `events-${queues}-${args.length}.ndjson`);
  const loom = startLoom(
    [
      'workflow',
      'run',
      scriptPath,
      '--meta',
      meta,
      '--model',
      `scripted:${modelPath}`,
      '--json',
      '--events',
      eventsPath,
      ...args,
    ],
    { home, cwd, env: env() },
  );
  return { loom, eventsPath };
}

const manyItems = (count: number) =>
  `return parallel(Array.from({ length: ${count} }, (_, index) => () => agent('item ' + index)));`;
const itemModel = (delayMs = 0) => ({
  rules: [{ when: '^item (\\d+)$', reply: 'done {{1}}', ...(delayMs ? { delayMs } : {}) }],
});

test('ACCEPTANCE: a 200-agent workflow over 3 workers completes with the value of a local run', async () => {
  const queue = newQueue();
  const workspace = temporaryFolder('loom-farm-work-');
  const workers = await Promise.all([1, 2, 3].map(() => startWorker(queue, { cwd: workspace })));
  try {
    const home = farmHome(queue);
    const remote = startRun(home, workspace, manyItems(200), itemModel(), [
      '--provider',
      'farm',
      '--max-concurrent',
      '32',
    ]);
    const remoteExit = await remote.loom.exited;
    assert.equal(remoteExit.code, 0, remote.loom.stderr());
    const local = startRun(home, workspace, manyItems(200), itemModel());
    const localExit = await local.loom.exited;
    assert.equal(localExit.code, 0, local.loom.stderr());
    const remoteResult = parseResult({ stdout: remote.loom.stdout(), stderr: '' });
    const localResult = parseResult({ stdout: local.loom.stdout(), stderr: '' });
    assert.deepEqual(remoteResult.value, localResult.value);
    assert.equal((remoteResult.value as unknown[]).length, 200);
    const perWorker = workers.map(jobsStarted);
    assert.equal(
      perWorker.reduce((sum, count) => sum + count, 0),
      200,
    );
    assert.ok(
      perWorker.every((count) => count > 0),
      `jobs per worker: ${perWorker.join(', ')}`,
    );
    for (const pair of agentPairs(readEvents(remote.eventsPath)).values()) {
      assert.equal(pair.end?.outcome, 'completed');
    }
  } finally {
    await stopWorkers(workers);
  }
});

test('ACCEPTANCE: a worker killed with SIGKILL mid-run loses no child: its children finish on the others', async () => {
  const queue = newQueue();
  const workspace = temporaryFolder('loom-farm-work-');
  const stalledMs = 1000;
  const workers = await Promise.all(
    [1, 2, 3].map(() => startWorker(queue, { cwd: workspace, stalledMs })),
  );
  try {
    const home = farmHome(queue, stalledMs);
    const run = startRun(home, workspace, manyItems(30), itemModel(300), [
      '--provider',
      'farm',
      '--max-concurrent',
      '6',
    ]);
    const [victim, ...survivors] = workers;
    assert.ok(victim);
    await victim.waitForStderr(JOB_STARTED, 1);
    victim.child.kill('SIGKILL');
    const exit = await run.loom.exited;
    assert.equal(exit.code, 0, run.loom.stderr());
    const result = parseResult({ stdout: run.loom.stdout(), stderr: '' });
    assert.deepEqual(
      result.value,
      Array.from({ length: 30 }, (_, index) => `done ${index}`),
    );
    assert.deepEqual(result.failures, []);
    assert.ok(
      survivors.reduce((sum, worker) => sum + jobsStarted(worker), 0) >=
        30 - jobsStarted(victim) + 1,
    );
  } finally {
    await stopWorkers(workers);
  }
});

test('ACCEPTANCE: cancel leaves no active or waiting job and every agent paired', async () => {
  const queue = newQueue();
  const workspace = temporaryFolder('loom-farm-work-');
  const workers = await Promise.all([1, 2].map(() => startWorker(queue, { cwd: workspace })));
  try {
    const home = farmHome(queue);
    const run = startRun(
      home,
      workspace,
      "return parallel(Array.from({ length: 8 }, (_, index) => () => agent('stuck ' + index)));",
      { rules: [{ when: '^stuck', hang: true }] },
      ['--provider', 'farm', '--max-concurrent', '8'],
    );
    await Promise.all(workers.map((worker) => worker.waitForStderr(JOB_STARTED, 1)));
    run.loom.child.kill('SIGINT');
    const exit = await run.loom.exited;
    assert.equal(exit.code, 130, run.loom.stderr());
    for (const pair of agentPairs(readEvents(run.eventsPath)).values()) {
      assert.equal(pair.end?.outcome, 'cancelled');
    }
    const status = await runLoom(['worker', 'status', '--provider', 'farm', '--json'], {
      home,
      env: env(),
    });
    assert.equal(status.code, 0, status.stderr);
    const counts = JSON.parse(status.stdout) as { counts: Record<string, number> };
    assert.equal(counts.counts.active, 0, status.stdout);
    assert.equal(counts.counts.waiting, 0, status.stdout);
  } finally {
    await stopWorkers(workers);
  }
});

test('ACCEPTANCE: the parent killed mid-run and resumed re-attaches: no finished child is asked again', async () => {
  const queue = newQueue();
  const workspace = temporaryFolder('loom-farm-work-');
  const workers = await Promise.all([1, 2].map(() => startWorker(queue, { cwd: workspace })));
  try {
    const home = farmHome(queue);
    const first = startRun(home, workspace, manyItems(24), itemModel(150), [
      '--provider',
      'farm',
      '--max-concurrent',
      '6',
    ]);
    await first.loom.waitForStderr(COMPLETED_LINE, 8);
    first.loom.child.kill('SIGKILL');
    await first.loom.exited;
    const runs = await runLoom(['workflow', 'runs', '--json'], { home, env: env() });
    const runId = (JSON.parse(runs.stdout.trim().split('\n')[0] ?? '{}') as { runId: string })
      .runId;
    assert.match(runId, /^workflow-/);
    const resumed = startLoom(
      ['workflow', 'run', '--resume', runId, '--provider', 'farm', '--json'],
      { home, cwd: workspace, env: env() },
    );
    const exit = await resumed.exited;
    assert.equal(exit.code, 0, resumed.stderr());
    const result = parseResult({ stdout: resumed.stdout(), stderr: '' });
    assert.deepEqual(
      result.value,
      Array.from({ length: 24 }, (_, index) => `done ${index}`),
    );
    // Each child ran once: the jobs the killed parent queued were re-attached, not queued again.
    assert.equal(
      workers.reduce((sum, worker) => sum + jobsStarted(worker), 0),
      24,
    );
  } finally {
    await stopWorkers(workers);
  }
});

function gitCheckout(marker: string): string {
  const folder = temporaryFolder('loom-farm-git-');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'marker.txt'), marker);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=loom@test', '-c', 'user.name=loom', ...args], {
      cwd: folder,
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', 'marker.txt');
  git('commit', '-qm', marker);
  return folder;
}

test('ACCEPTANCE: a worker at another revision refuses the children (WORKSPACE_MISMATCH); --any-revision takes them', async () => {
  const parentCheckout = gitCheckout('parent');
  const workerCheckout = gitCheckout('worker');
  for (const anyRevision of [false, true]) {
    const queue = newQueue();
    const worker = await startWorker(queue, {
      cwd: workerCheckout,
      ...(anyRevision ? { args: ['--any-revision'] } : {}),
    });
    try {
      const home = farmHome(queue);
      const run = startRun(home, parentCheckout, manyItems(2), itemModel(), ['--provider', 'farm']);
      const exit = await run.loom.exited;
      const result = parseResult({ stdout: run.loom.stdout(), stderr: run.loom.stderr() });
      if (anyRevision) {
        assert.equal(exit.code, 0, run.loom.stderr());
        assert.deepEqual(result.value, ['done 0', 'done 1']);
      } else {
        assert.deepEqual(result.value, [null, null]);
        const failures = result.failures as Array<{ reason: string }>;
        assert.equal(failures.length, 2);
        for (const failure of failures) assert.match(failure.reason, /WORKSPACE_MISMATCH/);
      }
    } finally {
      await stopWorkers([worker]);
    }
  }
});
