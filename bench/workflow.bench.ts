/**
 * Workflow engine figures: start latency (start() to the first `workflow/agent-start`), a
 * 1000-agent fan-out over instant children (total, per agent, peak memory), and how long the
 * host event loop stalls while a script spins inside its worker, next to the same spin run in a
 * host-thread `vm` context. Children come from a fake subagent provider that answers at once, so
 * the figures are the engine's own cost. The engine is the built one in dist/ (run `npm run
 * build` first), as users get it: under tsx each worker would compile TypeScript at start.
 * Measures only; never asserts.
 */
import { execFile, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import type {
  WorkflowEngineKind,
  WorkflowLimits,
  WorkflowResult,
} from '../src/workflow/contract.js';
import type { WorkerWorkflowService } from '../src/workflow/host.js';
import { importBuilt } from './built.js';
import { instantProvider } from './instant-provider.js';
import type { BenchRow } from './run.js';

const { Context } = await importBuilt<typeof import('../src/core/context.js')>('core/context.js');
const { SubagentRegistry } =
  await importBuilt<typeof import('../src/subagent/registry.js')>('subagent/registry.js');
const { workflowAgentStart } =
  await importBuilt<typeof import('../src/workflow/contract.js')>('workflow/contract.js');
const { buildRuntime } =
  await importBuilt<typeof import('../src/cli/build-runtime.js')>('cli/build-runtime.js');
const { WorkerWorkflowService: BuiltService } =
  await importBuilt<typeof import('../src/workflow/host.js')>('workflow/host.js');

const START_RUNS = 30;
const FAN_OUT = 1000;
const SPIN_MS = 1000;

function makeService(limits: Partial<WorkflowLimits> = {}, engine?: WorkflowEngineKind) {
  const context = new Context({ name: 'bench' });
  const registry = new SubagentRegistry(context);
  registry.register(instantProvider);
  const service = new BuiltService({
    context,
    registry,
    provider: 'instant',
    limits,
    ...(engine ? { engine } : {}),
  });
  return { context, service };
}

const meta = { name: 'bench', description: 'Workflow engine benchmark' };
const parent = { sessionId: null, delegationDepth: 0 };

async function runScript(
  service: WorkerWorkflowService,
  script: string,
  limits?: Partial<WorkflowLimits>,
): Promise<WorkflowResult> {
  const run = service.start({ meta, script, parent, ...(limits ? { limits } : {}) });
  try {
    const result = await run.result;
    if (result.stopReason !== 'completed') {
      throw new Error(`the bench run ended ${result.stopReason}: ${result.error?.message}`);
    }
    return result;
  } finally {
    run.dispose();
  }
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

async function startLatency(engine?: WorkflowEngineKind): Promise<number> {
  const { context, service } = makeService({}, engine);
  const samples: number[] = [];
  for (let index = 0; index < START_RUNS + 3; index += 1) {
    let firstAgent = 0;
    const stop = context.on(workflowAgentStart, () => {
      if (firstAgent === 0) firstAgent = performance.now();
    });
    const began = performance.now();
    await runScript(service, "return await agent('first', { label: 'first' });");
    stop();
    if (index >= 3) samples.push(firstAgent - began);
  }
  return percentile(samples, 0.5);
}

async function fanOut(engine?: WorkflowEngineKind): Promise<{
  totalMs: number;
  perAgentMs: number;
  peakRssMb: number;
  rssGrowthMb: number;
  heapGrowthMb: number;
}> {
  const limits = { maxConcurrentAgents: 16, maxTotalAgents: FAN_OUT };
  const { service } = makeService(limits, engine);
  const script = `const results = await parallel(Array.from({ length: ${FAN_OUT} }, (_, index) => () => agent('item ' + index, { label: 'item ' + index })));
return results.filter(Boolean).length;`;
  await runScript(service, script);
  const emptyStarted = performance.now();
  await runScript(service, 'return 0;');
  const emptyMs = performance.now() - emptyStarted;

  globalThis.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peakRss = Math.max(peakRss, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed);
  }, 5);
  const started = performance.now();
  const result = await runScript(service, script);
  const totalMs = performance.now() - started;
  clearInterval(sampler);
  const after = process.memoryUsage();
  peakRss = Math.max(peakRss, after.rss);
  peakHeap = Math.max(peakHeap, after.heapUsed);
  if (result.value !== FAN_OUT || result.agentsStarted !== FAN_OUT) {
    throw new Error(`the fan-out completed ${String(result.value)} of ${FAN_OUT} agents`);
  }
  const megabytes = (bytes: number) => bytes / 1024 / 1024;
  return {
    totalMs,
    perAgentMs: Math.max(0, totalMs - emptyMs) / FAN_OUT,
    peakRssMb: megabytes(peakRss),
    rssGrowthMb: megabytes(peakRss - before.rss),
    heapGrowthMb: megabytes(peakHeap - before.heapUsed),
  };
}

/** The same fan-out through the real stack: spawn provider, agent loop, scripted model, sessions on disk. */
async function scriptedFanOut(): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-workflow-'));
  try {
    const model = join(home, 'model.json');
    writeFileSync(model, JSON.stringify({ rules: [], default: { reply: 'ok' } }));
    const setup = buildRuntime({ cwd: home, home, model: `scripted:${model}` });
    const script = `return (await parallel(Array.from({ length: ${FAN_OUT} }, (_, index) => () => agent('item ' + index)))).filter(Boolean).length;`;
    const started = performance.now();
    const run = setup.workflow.service.start({
      meta,
      script,
      parent,
      limits: { maxConcurrentAgents: 16 },
    });
    const result = await run.result;
    const elapsed = performance.now() - started;
    run.dispose();
    setup.workflow.dispose();
    setup.subagents.dispose();
    if (result.value !== FAN_OUT)
      throw new Error(`the scripted fan-out ended ${result.stopReason}`);
    return elapsed / FAN_OUT;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const CLI_RUNS = 5;
const CLI_SLOTS = [1, 4, 16] as const;
/** A model answer that takes this long: children that wait, as real ones do, for the slots to overlap. */
const WAITING_CHILD_MS = 2;

/**
 * Where the CLI runs keep LOOM_HOME. On tmpfs (/dev/shm) when the machine has it: this machine's
 * ext4 (no journal) spends 0.5-0.8 ms of kernel time on every new inode for tens of seconds after
 * any large delete (`recently_deleted` in its inode allocator, seen with `perf`), whatever program
 * creates it, which would make the per-agent figure depend on what ran before. The same run in
 * the system's temporary folder is printed beside it.
 */
const TMPFS = '/dev/shm';
const homeRoot = existsSync(TMPFS) ? TMPFS : tmpdir();

/**
 * Loaded before bin/loom: at exit it writes the whole process's CPU time (every thread, the
 * script's worker included) and peak RSS to the file LOOM_BENCH_USAGE names.
 */
const USAGE_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs';\n" +
    "process.on('exit', () => { const usage = process.resourceUsage(); " +
    'writeFileSync(process.env.LOOM_BENCH_USAGE, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKb: usage.maxRSS })); });',
)}`;

interface CliRun {
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
  /** The largest session file the run's children left (prompts are stored apart, once). */
  largestChildFileBytes: number;
}

interface PreparedRun {
  agents: number;
  home: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  usageFile: string;
}

/**
 * One `bin/loom workflow run` in a fresh LOOM_HOME under `root`, ready to start. The home stays
 * until the caller removes `root`: deleting a thousand files between runs would slow the next
 * run's file creation on some file systems (see TMPFS).
 */
function prepareRun(agents: number, slots: number, root: string, childMs = 0): PreparedRun {
  const home = mkdtempSync(join(root, 'run-'));
  const model = join(home, 'model.json');
  const answer = childMs > 0 ? { reply: 'ok', delayMs: childMs } : { reply: 'ok' };
  writeFileSync(model, JSON.stringify({ rules: [], default: answer }));
  const script = join(home, 'fan-out.js');
  writeFileSync(
    script,
    `export const meta = { name: 'fan-out', description: '${agents} instant agents' };\n` +
      `return (await parallel(Array.from({ length: ${agents} }, (_, index) => () => agent('item ' + index)))).filter(Boolean).length;\n`,
  );
  const usageFile = join(home, 'usage.json');
  const bin = fileURLToPath(new URL('../bin/loom', import.meta.url));
  const args = ['--import', USAGE_PRELOAD, bin, 'workflow', 'run', script];
  args.push('--model', `scripted:${model}`, '--max-concurrent', String(slots));
  args.push('--max-agents', String(agents), '--json');
  const env = { ...process.env, LOOM_HOME: home, LOOM_BENCH_USAGE: usageFile };
  return { agents, home, args, env, usageFile };
}

/** A finished run's figures; throws unless every agent answered. */
function finishedRun(
  run: PreparedRun,
  outcome: { status: number | null; stdout: string; stderr: string },
  wallMs: number,
): CliRun {
  const value =
    outcome.status === 0 ? (JSON.parse(outcome.stdout) as { value?: unknown }).value : null;
  if (value !== run.agents) {
    throw new Error(`loom workflow run of ${run.agents} agents failed: ${outcome.stderr}`);
  }
  const usage = JSON.parse(readFileSync(run.usageFile, 'utf8')) as {
    cpuMs: number;
    maxRssKb: number;
  };
  const sessions = join(run.home, 'sessions');
  const childFiles = readdirSync(sessions).filter((name) => name.endsWith('.jsonl'));
  const largestChildFileBytes = Math.max(
    ...childFiles.map((name) => statSync(join(sessions, name)).size),
  );
  return { wallMs, cpuMs: usage.cpuMs, maxRssMb: usage.maxRssKb / 1024, largestChildFileBytes };
}

/** One run, waited for: its wall time, CPU time and peak RSS. */
function cliWorkflowRun(agents: number, slots: number, root: string, childMs = 0): CliRun {
  const run = prepareRun(agents, slots, root, childMs);
  const started = performance.now();
  const outcome = spawnSync(process.execPath, run.args, { env: run.env, encoding: 'utf8' });
  return finishedRun(run, outcome, performance.now() - started);
}

/** The same, as a promise, so that two runs can overlap. */
function cliWorkflowRunInBackground(agents: number, slots: number, root: string): Promise<CliRun> {
  const run = prepareRun(agents, slots, root);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      run.args,
      { env: run.env, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        try {
          resolve(finishedRun(run, { status, stdout, stderr }, performance.now() - started));
        } catch (failure) {
          reject(failure);
        }
      },
    );
  });
}

/**
 * Roughly what running children on two threads could give a fan-out whose children are instant:
 * the same agents split over two whole processes that run at once, each with its own start-up,
 * nothing shared (a second thread in one process would start less and share the start-up, but
 * it, too, would load and warm up the agent runtime twice). Its wall time and the two runs' CPU
 * together.
 */
async function splitFanOut(root: string): Promise<{ wallMs: number; cpuMs: number }> {
  const started = performance.now();
  const halves = await Promise.all([
    cliWorkflowRunInBackground(FAN_OUT / 2, 16, root),
    cliWorkflowRunInBackground(FAN_OUT / 2, 16, root),
  ]);
  const wallMs = performance.now() - started;
  return { wallMs, cpuMs: halves.reduce((total, half) => total + half.cpuMs, 0) };
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

/**
 * The whole CLI as a user runs it: host CPU per agent of a ${FAN_OUT}-agent run at 16 slots
 * (its CPU minus a one-agent run's, so start-up is not spread over the agents), the wall time at
 * 1, 4 and 16 slots, and the two-process split (`splitFanOut`), each the median of CLI_RUNS runs
 * taken in turn; homes under `root`.
 */
async function cliFanOut(root: string): Promise<{
  cpuPerAgentMs: number;
  totalCpuPerAgentMs: number;
  wallMs: Record<(typeof CLI_SLOTS)[number], number>;
  split: { wallMs: number; cpuPerAgentMs: number };
  maxRssMb: number;
  oneAnswerChildFileBytes: number;
}> {
  const folder = mkdtempSync(join(root, 'loom-bench-workflow-cli-'));
  try {
    const one: CliRun[] = [];
    const runs = new Map<number, CliRun[]>(CLI_SLOTS.map((slots) => [slots, []]));
    const splits: { wallMs: number; cpuMs: number }[] = [];
    for (let round = 0; round < CLI_RUNS; round += 1) {
      one.push(cliWorkflowRun(1, 1, folder));
      for (const slots of CLI_SLOTS) runs.get(slots)?.push(cliWorkflowRun(FAN_OUT, slots, folder));
      splits.push(await splitFanOut(folder));
    }
    const at = (slots: number) => runs.get(slots) ?? [];
    const cpu16 = median(at(16).map((run) => run.cpuMs));
    const cpuOne = median(one.map((run) => run.cpuMs));
    return {
      cpuPerAgentMs: (cpu16 - cpuOne) / (FAN_OUT - 1),
      totalCpuPerAgentMs: cpu16 / FAN_OUT,
      wallMs: {
        1: median(at(1).map((run) => run.wallMs)),
        4: median(at(4).map((run) => run.wallMs)),
        16: median(at(16).map((run) => run.wallMs)),
      },
      split: {
        wallMs: median(splits.map((split) => split.wallMs)),
        cpuPerAgentMs: (median(splits.map((split) => split.cpuMs)) - cpuOne) / (FAN_OUT - 1),
      },
      maxRssMb: median(at(16).map((run) => run.maxRssMb)),
      oneAnswerChildFileBytes: Math.max(...one.map((run) => run.largestChildFileBytes)),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Wall time at 1 and 16 slots (one run each) when every child's model takes WAITING_CHILD_MS:
 * what the slots are for. With instant children the host's own work is all there is, and one
 * thread does it at any number of slots.
 */
function cliWaitingFanOut(root: string): Record<1 | 16, number> {
  const folder = mkdtempSync(join(root, 'loom-bench-workflow-wait-'));
  try {
    return {
      1: cliWorkflowRun(FAN_OUT, 1, folder, WAITING_CHILD_MS).wallMs,
      16: cliWorkflowRun(FAN_OUT, 16, folder, WAITING_CHILD_MS).wallMs,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** CPU per agent with LOOM_HOME in the system's temporary folder (for comparison with tmpfs). */
function cliCpuPerAgentInTemporaryFolder(): number {
  const folder = mkdtempSync(join(tmpdir(), 'loom-bench-workflow-cli-'));
  try {
    const one: number[] = [];
    const many: number[] = [];
    for (let round = 0; round < CLI_RUNS; round += 1) {
      one.push(cliWorkflowRun(1, 1, folder).cpuMs);
      many.push(cliWorkflowRun(FAN_OUT, 16, folder).cpuMs);
    }
    return (median(many) - median(one)) / (FAN_OUT - 1);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Resuming a finished run through bin/loom, where every `agent()` call is answered from the run's
 * journal: (wall of resuming a ${FAN_OUT}-agent run - wall of resuming a 1-agent run) / (${FAN_OUT} - 1),
 * medians of CLI_RUNS resumes each, so start-up is not spread over the calls.
 */
function cliResumePerJournaledCall(root: string): number {
  const folder = mkdtempSync(join(root, 'loom-bench-workflow-resume-'));
  try {
    const bin = fileURLToPath(new URL('../bin/loom', import.meta.url));
    const finished = (agents: number) => {
      const run = prepareRun(agents, 16, folder);
      const outcome = spawnSync(process.execPath, run.args, { env: run.env, encoding: 'utf8' });
      finishedRun(run, outcome, 0);
      return { run, runId: (JSON.parse(outcome.stdout) as { runId: string }).runId };
    };
    const resumeWall = ({ run, runId }: ReturnType<typeof finished>): number => {
      const started = performance.now();
      const outcome = spawnSync(
        process.execPath,
        [bin, 'workflow', 'run', '--resume', runId, '--json'],
        { env: run.env, encoding: 'utf8' },
      );
      const wallMs = performance.now() - started;
      const value =
        outcome.status === 0 ? (JSON.parse(outcome.stdout) as { value?: unknown }).value : null;
      if (value !== run.agents) {
        throw new Error(`resuming a ${run.agents}-agent run failed: ${outcome.stderr}`);
      }
      return wallMs;
    };
    const many = finished(FAN_OUT);
    const one = finished(1);
    const manyWalls: number[] = [];
    const oneWalls: number[] = [];
    for (let round = 0; round < CLI_RUNS; round += 1) {
      oneWalls.push(resumeWall(one));
      manyWalls.push(resumeWall(many));
    }
    return (median(manyWalls) - median(oneWalls)) / (FAN_OUT - 1);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const spinBody = `const end = Date.now() + ${SPIN_MS}; while (Date.now() < end) {}`;

/** Event-loop delay of the host (p99 and max, ms) while `work` runs. */
async function loopDelay(work: () => Promise<unknown>): Promise<{ p99: number; max: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await work();
  histogram.disable();
  return { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
}

async function spinDelays(): Promise<{ worker: { p99: number; max: number }; vm: number }> {
  const { service } = makeService({ syncTimeoutMs: 1500 });
  await runScript(service, 'return 1;');
  const worker = await loopDelay(() => runScript(service, `${spinBody}\nreturn 1;`));
  const sandbox = createContext({});
  const vm = await loopDelay(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    runInContext(spinBody, sandbox, { timeout: 1500 });
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
  return { worker, vm: vm.max };
}

/**
 * Both engines side by side: start (start() to the first agent-start, p50) and per-agent cost
 * (a 1000-agent fan-out minus an empty run), and the isolated engine's ratio to the worker
 * engine's, which picks the default engine (README: isolated if both ratios are at most 2).
 */
async function engineRows(): Promise<BenchRow[]> {
  const figures: Record<WorkflowEngineKind, { start: number; perAgent: number }> = {
    worker: { start: 0, perAgent: 0 },
    isolated: { start: 0, perAgent: 0 },
  };
  for (const engine of ['worker', 'isolated'] as const) {
    figures[engine] = {
      start: await startLatency(engine),
      perAgent: (await fanOut(engine)).perAgentMs,
    };
  }
  const startRatio = figures.isolated.start / figures.worker.start;
  // The worker engine's own cost per agent is a few microseconds and can read 0 in a noisy run.
  const perAgentRatio = figures.isolated.perAgent / Math.max(figures.worker.perAgent, 0.001);
  const isolatedByDefault = startRatio <= 2 && perAgentRatio <= 2;
  const rule = `isolated is the default only if both <= 2 (default: ${isolatedByDefault ? 'isolated' : 'worker'})`;
  return [
    ...(['worker', 'isolated'] as const).flatMap((engine) => [
      {
        name: `workflow engines: ${engine}: start() to first agent-start, p50 of ${START_RUNS} runs`,
        value: figures[engine].start,
        unit: 'ms',
      },
      {
        name: `workflow engines: ${engine}: cost per agent (${FAN_OUT}-agent fan-out minus an empty run)`,
        value: figures[engine].perAgent,
        unit: 'ms',
      },
    ]),
    {
      name: 'workflow engines: isolated / worker, start',
      value: startRatio,
      unit: 'x',
      target: rule,
    },
    {
      name: 'workflow engines: isolated / worker, cost per agent',
      value: perAgentRatio,
      unit: 'x',
      target: rule,
    },
  ];
}

export default async function workflowBench(): Promise<BenchRow[]> {
  // `LOOM_BENCH_WORKFLOW=engines npm run bench workflow`: only the engines side by side.
  if (process.env.LOOM_BENCH_WORKFLOW === 'engines') return engineRows();
  const engines = await engineRows();
  const startP50 = await startLatency();
  const fan = await fanOut();
  const spin = await spinDelays();
  const scriptedPerAgent = await scriptedFanOut();
  const cli = await cliFanOut(homeRoot);
  const cpuInTemporaryFolder =
    homeRoot === tmpdir() ? undefined : cliCpuPerAgentInTemporaryFolder();
  const waiting = cliWaitingFanOut(homeRoot);
  const resumePerCall = cliResumePerJournaledCall(homeRoot);
  // A clear fall, not noise: 4 slots beat 1, and 16 slots take at most three quarters of 1's time.
  const falling =
    cli.wallMs[16] < cli.wallMs[4] &&
    cli.wallMs[4] < cli.wallMs[1] &&
    cli.wallMs[16] <= 0.75 * cli.wallMs[1];
  return [
    {
      name: `workflow: start() to first agent-start, p50 of ${START_RUNS} runs`,
      value: startP50,
      unit: 'ms',
      target: '< 30 ms',
      ok: startP50 < 30,
    },
    {
      name: `workflow: ${FAN_OUT}-agent parallel fan-out, instant children, 16 at once`,
      value: fan.totalMs,
      unit: 'ms',
    },
    {
      name: 'workflow: engine overhead per agent (fan-out minus an empty run)',
      value: fan.perAgentMs,
      unit: 'ms',
      target: '< 1 ms',
      ok: fan.perAgentMs < 1,
    },
    {
      name: `workflow: ${FAN_OUT}-agent fan-out through spawn + scripted model, per agent`,
      value: scriptedPerAgent,
      unit: 'ms',
    },
    {
      name: `workflow: bin/loom workflow run, ${FAN_OUT} agents at 16 slots, host CPU per agent beyond a 1-agent run (median of ${CLI_RUNS}, LOOM_HOME in ${homeRoot})`,
      value: cli.cpuPerAgentMs,
      unit: 'ms',
      target: '< 0.5 ms',
      ok: cli.cpuPerAgentMs < 0.5,
    },
    ...(cpuInTemporaryFolder === undefined
      ? []
      : [
          {
            name: `workflow: same, LOOM_HOME in ${tmpdir()} (this machine's ext4: slow new inodes after deletes)`,
            value: cpuInTemporaryFolder,
            unit: 'ms',
          },
        ]),
    {
      name: `workflow: same run, its whole CPU time / ${FAN_OUT} (start-up included)`,
      value: cli.totalCpuPerAgentMs,
      unit: 'ms',
    },
    ...CLI_SLOTS.map(
      (slots): BenchRow => ({
        name: `workflow: bin/loom workflow run, ${FAN_OUT} agents, --max-concurrent ${slots}, wall (median of ${CLI_RUNS})`,
        value: Math.round(cli.wallMs[slots]),
        unit: 'ms',
      }),
    ),
    {
      name: 'workflow: wall at 16 slots / at 1 slot (must fall as slots rise: 16 < 4 < 1)',
      value: Math.round((cli.wallMs[16] / cli.wallMs[1]) * 100) / 100,
      unit: 'x',
      target: '<= 0.75 x, falling',
      ok: falling,
    },
    {
      name: `workflow: the same ${FAN_OUT} agents as two ${FAN_OUT / 2}-agent runs in two processes at once (about what two threads could give), wall (median of ${CLI_RUNS})`,
      value: Math.round(cli.split.wallMs),
      unit: 'ms',
    },
    {
      name: 'workflow: that split / one run at 1 slot',
      value: Math.round((cli.split.wallMs / cli.wallMs[1]) * 100) / 100,
      unit: 'x',
    },
    {
      name: "workflow: that split, both runs' CPU per agent beyond a 1-agent run",
      value: cli.split.cpuPerAgentMs,
      unit: 'ms',
    },
    ...([1, 16] as const).map(
      (slots): BenchRow => ({
        name: `workflow: bin/loom workflow run, ${FAN_OUT} agents whose model answers after ${WAITING_CHILD_MS} ms, --max-concurrent ${slots}, wall`,
        value: Math.round(waiting[slots]),
        unit: 'ms',
      }),
    ),
    {
      name: `workflow: same, ${WAITING_CHILD_MS}-ms children, wall at 16 slots / at 1 slot`,
      value: Math.round((waiting[16] / waiting[1]) * 100) / 100,
      unit: 'x',
    },
    {
      name: `workflow: resume of a finished ${FAN_OUT}-agent run, ms per journaled call (bin/loom, beyond resuming a 1-agent run, median of ${CLI_RUNS})`,
      value: resumePerCall,
      unit: 'ms',
      target: '< 0.2 ms',
      ok: resumePerCall < 0.2,
    },
    {
      name: `workflow: bin/loom workflow run, ${FAN_OUT} agents at 16 slots, peak RSS (median of ${CLI_RUNS})`,
      value: Math.round(cli.maxRssMb),
      unit: 'MB',
      target: '< 150 MB',
      ok: cli.maxRssMb < 150,
    },
    {
      name: 'workflow: session file of a one-answer child (prompts stored once, apart)',
      value: cli.oneAnswerChildFileBytes,
      unit: 'bytes',
      target: '< 2048 bytes',
      ok: cli.oneAnswerChildFileBytes < 2048,
    },
    {
      name: `workflow: host loop delay p99 while the script spins ${SPIN_MS} ms in its worker`,
      value: spin.worker.p99,
      unit: 'ms',
      target: '< 10 ms',
      ok: spin.worker.p99 < 10,
    },
    {
      name: 'workflow: host loop delay max, same spin in its worker',
      value: spin.worker.max,
      unit: 'ms',
    },
    {
      name: 'workflow: baseline, same spin in a host-thread vm context (loop blocked)',
      value: spin.vm,
      unit: 'ms',
    },
    {
      name: `workflow: peak RSS during the ${FAN_OUT}-agent run (whole process, worker included)`,
      value: fan.peakRssMb,
      unit: 'MB',
    },
    {
      name: `workflow: RSS growth during the ${FAN_OUT}-agent run`,
      value: fan.rssGrowthMb,
      unit: 'MB',
    },
    {
      name: `workflow: host heap growth during the ${FAN_OUT}-agent run`,
      value: fan.heapGrowthMb,
      unit: 'MB',
    },
    ...engines,
  ];
}
