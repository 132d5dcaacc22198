/**
 * Subagent layer costs: how long an in-process child takes from `registry.start` to its first
 * model request (session file, agent assembly, tools, prompt), and how much heap an idle
 * continuable child keeps. Measures only; never asserts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Context } from '../src/core/context.js';
import { AgentRuntime } from '../src/core/runtime.js';
import type { ModelClient } from '../src/llm/contract.js';
import { createScriptedModel } from '../src/llm/scripted-model.js';
import type { SubagentStartRequest } from '../src/subagent/contract.js';
import { installSubagents, type SubagentLayer } from '../src/subagent/install.js';
import type { BenchRow } from './run.js';

const STARTS = 200;
const WARM_UP = 20;
const IDLE_CHILDREN = 200;

interface Bench {
  runtime: AgentRuntime;
  layer: SubagentLayer;
  /** performance.now() of the first model request since the last reset. */
  firstRequestAt(): number | undefined;
  reset(): void;
  dispose(): void;
}

function setup(): Bench {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-subagent-'));
  const inner = createScriptedModel(
    { rules: [], default: { reply: 'done' } },
    { name: 'bench', recordCalls: false },
  );
  let firstRequest: number | undefined;
  const model: ModelClient = {
    id: inner.id,
    stream(request) {
      firstRequest ??= performance.now();
      return inner.stream(request);
    },
  };
  const runtime = new AgentRuntime({
    root: new Context(),
    home,
    cwd: home,
    resolveModel: () => model,
  });
  const layer = installSubagents(runtime);
  return {
    runtime,
    layer,
    firstRequestAt: () => firstRequest,
    reset: () => {
      firstRequest = undefined;
    },
    dispose: () => {
      for (const handle of runtime.liveAgents) handle.close();
      layer.dispose();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const request = (prompt: string, continuable = false): SubagentStartRequest => ({
  parent: { sessionId: null, delegationDepth: 0 },
  prompt,
  ...(continuable ? { continuable: true } : {}),
});

function percentile(sorted: number[], fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

/** Milliseconds from `registry.start` to the child's first `stream()` call, one per start. */
async function startLatencies(count: number): Promise<number[]> {
  const bench = setup();
  const samples: number[] = [];
  try {
    for (let index = 0; index < WARM_UP + count; index++) {
      bench.reset();
      const started = performance.now();
      const run = bench.layer.services.registry.start('spawn', request(`task ${index}`));
      const result = await run.result;
      const reached = bench.firstRequestAt();
      if (result.stopReason !== 'completed' || reached === undefined) {
        throw new Error(`bench child ${index} ended ${result.stopReason}`);
      }
      if (index >= WARM_UP) samples.push(reached - started);
    }
  } finally {
    bench.dispose();
  }
  return samples.sort((left, right) => left - right);
}

/** `global.gc` when node runs with --expose-gc; otherwise V8's flag switched on at run time. */
function garbageCollector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

/** Heap bytes kept per continuable child that has answered once and is idle. */
async function idleChildBytes(count: number): Promise<{ bytes: number; collected: boolean }> {
  const gc = garbageCollector();
  const bench = setup();
  try {
    const { registry } = bench.layer.services;
    await registry.start('spawn', request('warm up', true)).result;
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const runs = Array.from({ length: count }, (_, index) =>
      registry.start('spawn', request(`idle child ${index}`, true)),
    );
    const results = await Promise.all(runs.map((run) => run.result));
    if (results.some((result) => result.stopReason !== 'completed')) {
      throw new Error('an idle bench child did not complete');
    }
    await Promise.all(
      runs.map((run) => bench.runtime.find(run.id)?.agent.whenIdle() ?? Promise.resolve()),
    );
    gc?.();
    const after = process.memoryUsage().heapUsed;
    if (bench.runtime.liveAgents.length !== count + 1) {
      throw new Error(
        `expected ${count + 1} live children, found ${bench.runtime.liveAgents.length}`,
      );
    }
    return { bytes: (after - before) / count, collected: gc !== undefined };
  } finally {
    bench.dispose();
  }
}

export default async function subagentBench(): Promise<BenchRow[]> {
  const latencies = await startLatencies(STARTS);
  const p50 = percentile(latencies, 0.5);
  const p95 = percentile(latencies, 0.95);
  const memory = await idleChildBytes(IDLE_CHILDREN);
  const kib = memory.bytes / 1024;
  return [
    {
      name: `subagent: start to first model request, p50 (${STARTS} in-process spawns)`,
      value: p50,
      unit: 'ms',
      target: 'p50 < 5 ms',
      ok: p50 < 5,
    },
    {
      name: `subagent: start to first model request, p95 (${STARTS} in-process spawns)`,
      value: p95,
      unit: 'ms',
    },
    {
      name: `subagent: heap per idle continuable child (${IDLE_CHILDREN}${memory.collected ? ', after gc' : ', no gc'})`,
      value: kib,
      unit: 'KiB',
    },
  ];
}
