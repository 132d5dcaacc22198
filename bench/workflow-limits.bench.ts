/**
 * How fast the run-level limits end a run, on both engines, with the default limits: memory bombs
 * after an `await` (SCRIPT_MEMORY at 256 MB) and a 10-million-element return (RESULT_TOO_LARGE at
 * 16 MiB). Each figure is from the script's `log` just before the bomb to the run's
 * `workflow/end`: the time the script takes to allocate up to the limit, plus the time the limit
 * takes to end it. Two figures per case, each the median of three:
 * - a first run: a whole `bin/loom workflow run` process, as a user runs it from the command line
 *   (times from its `--events` file);
 * - a later run in the same process (the workflow tool in a long session), after one untimed
 *   run: on the isolated engine its QuickJS code is then V8's optimized code from the start
 *   (`core/quickjs-wasm.ts`).
 * Measures the built engine (`npm run build` first).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowEngineKind } from '../src/workflow/contract.js';
import { importBuilt } from './built.js';
import { instantProvider } from './instant-provider.js';
import type { BenchRow } from './run.js';

const { Context } = await importBuilt<typeof import('../src/core/context.js')>('core/context.js');
const { SubagentRegistry } =
  await importBuilt<typeof import('../src/subagent/registry.js')>('subagent/registry.js');
const { workflowEnd, workflowLog } =
  await importBuilt<typeof import('../src/workflow/contract.js')>('workflow/contract.js');
const { WorkerWorkflowService } =
  await importBuilt<typeof import('../src/workflow/host.js')>('workflow/host.js');

const ROUNDS = 3;
const TARGET_MS = 2000;

interface LimitCase {
  name: string;
  code: string;
  body: string;
  /** Shown without a target: what bounds its time is not the limit. */
  informational?: string;
}

const cases: LimitCase[] = [
  {
    name: 'memory bomb of small objects',
    code: 'SCRIPT_MEMORY',
    body: `let n = 0; const hoard = []; for (;;) hoard.push({ n: n++, text: 'x' + n });`,
  },
  {
    name: 'memory bomb of 1 KB strings',
    code: 'SCRIPT_MEMORY',
    body: `const hoard = []; for (;;) hoard.push('x'.repeat(1000) + hoard.length);`,
  },
  {
    name: 'memory bomb of 1M-element arrays',
    code: 'SCRIPT_MEMORY',
    body: 'const chunks = []; for (;;) chunks.push(new Array(1024 * 1024).fill(1.5));',
  },
  {
    name: 'memory bomb of objects holding formatted random numbers',
    code: 'SCRIPT_MEMORY',
    body: `const hoard = []; for (;;) hoard.push({ n: Math.random(), text: 'x' + Math.random() });`,
    informational: 'bound by CPU: QuickJS takes ~1 us to format a random double',
  },
  {
    name: '10-million-element return',
    code: 'RESULT_TOO_LARGE',
    body: 'return Array.from({ length: 10000000 }, (_, index) => index);',
  },
];

const scriptOf = (limitCase: LimitCase) => `await agent('first'); log('go');\n${limitCase.body}`;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** A later run in one process: one untimed run, then the median of ROUNDS. */
async function laterRun(engine: WorkflowEngineKind, limitCase: LimitCase): Promise<number> {
  const context = new Context({ name: 'bench' });
  const registry = new SubagentRegistry(context);
  registry.register(instantProvider);
  const service = new WorkerWorkflowService({ context, registry, provider: 'instant', engine });
  const logged = new Map<string, number>();
  const took = new Map<string, number>();
  context.on(workflowLog, (event) => {
    logged.set(event.runId, event.time);
  });
  context.on(workflowEnd, (event) => {
    const start = logged.get(event.runId);
    if (start !== undefined) took.set(event.runId, event.time - start);
  });
  const samples: number[] = [];
  for (let round = 0; round <= ROUNDS; round += 1) {
    const run = service.start({
      meta: { name: 'limits', description: 'how fast a limit ends a run' },
      parent: { sessionId: null, delegationDepth: 0 },
      script: scriptOf(limitCase),
    });
    const result = await run.result;
    run.dispose();
    const code = result.error?.code ?? result.stopReason;
    const milliseconds = took.get(run.id);
    if (code !== limitCase.code || milliseconds === undefined) {
      throw new Error(`${engine}: ${limitCase.name} ended ${code}, not ${limitCase.code}`);
    }
    if (round > 0) samples.push(milliseconds);
  }
  return median(samples);
}

interface TimedEvent {
  type: string;
  time: number;
  error?: { code: string };
}

/** A first run: the median of ROUNDS whole `bin/loom workflow run` processes. */
function firstRun(home: string, engine: WorkflowEngineKind, limitCase: LimitCase): number {
  const script = join(home, 'limit.js');
  writeFileSync(script, scriptOf(limitCase));
  writeFileSync(join(home, 'config.yaml'), `workflow:\n  engine: ${engine}\n`);
  const model = join(home, 'model.json');
  writeFileSync(model, JSON.stringify({ rules: [], default: { reply: 'ok' } }));
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const events = join(home, `events-${round}.jsonl`);
    const meta = JSON.stringify({ name: 'limits', description: 'how fast a limit ends a run' });
    const args = ['workflow', 'run', script, '--meta', meta, '--model', `scripted:${model}`];
    spawnSync(process.execPath, ['bin/loom', ...args, '--events', events], {
      env: { ...process.env, LOOM_HOME: home },
      stdio: 'ignore',
    });
    const lines = readFileSync(events, 'utf8').trim().split('\n');
    const written = lines.map((line) => JSON.parse(line) as TimedEvent);
    const log = written.find((event) => event.type === 'workflow/log');
    const end = written.find((event) => event.type === 'workflow/end');
    if (!log || end?.error?.code !== limitCase.code) {
      throw new Error(`bin/loom ${engine}: ${limitCase.name} ended ${end?.error?.code}`);
    }
    samples.push(end.time - log.time);
  }
  return median(samples);
}

export default async function workflowLimitsBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-limits-'));
  try {
    for (const engine of ['worker', 'isolated'] as const) {
      for (const limitCase of cases) {
        const figures = [
          ['first run (bin/loom)', firstRun(home, engine, limitCase)],
          ['later run in a process', await laterRun(engine, limitCase)],
        ] as const;
        for (const [which, value] of figures) {
          const name = `workflow limits: ${engine}: ${limitCase.name} to ${limitCase.code}, ${which}`;
          rows.push(
            limitCase.informational
              ? { name, value, unit: 'ms', target: limitCase.informational }
              : { name, value, unit: 'ms', target: `< ${TARGET_MS} ms`, ok: value < TARGET_MS },
          );
        }
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
}
