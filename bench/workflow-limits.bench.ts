/**
 * How fast the run-level limits end a run, on both engines, with the default limits: memory bombs
 * after an `await` (SCRIPT_MEMORY at 256 MB) and a 10-million-element return (RESULT_TOO_LARGE at
 * 16 MiB). Each figure is the median of three runs, from the script's `log` just before the bomb
 * to the run's `workflow/end`: the time the script takes to allocate up to the limit, plus the
 * time the limit takes to end it. Measures the built engine (`npm run build` first).
 */
import type { SubagentProvider } from '../src/subagent/contract.js';
import type { WorkflowEngineKind } from '../src/workflow/contract.js';
import { importBuilt } from './built.js';
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

const instant: SubagentProvider = {
  name: 'instant',
  capabilities: {
    outputSchema: true,
    depthLimit: true,
    toolFilter: true,
    persona: true,
    inheritsParentContext: false,
    activity: false,
  },
  start() {
    const result = Promise.resolve({
      sessionId: 'child',
      output: 'ok',
      stopReason: 'completed' as const,
      usage: { input: 1, output: 1 },
    });
    return { id: 'child', result, cancel() {}, dispose() {} };
  },
};

/** Milliseconds from the script's `log('go')` to `workflow/end`, median of ROUNDS runs. */
async function timeToEnd(engine: WorkflowEngineKind, limitCase: LimitCase): Promise<number> {
  const context = new Context({ name: 'bench' });
  const registry = new SubagentRegistry(context);
  registry.register(instant);
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
  for (let round = 0; round < ROUNDS; round += 1) {
    const run = service.start({
      meta: { name: 'limits', description: 'how fast a limit ends a run' },
      parent: { sessionId: null, delegationDepth: 0 },
      script: `await agent('first'); log('go');\n${limitCase.body}`,
    });
    const result = await run.result;
    run.dispose();
    const code = result.error?.code ?? result.stopReason;
    const milliseconds = took.get(run.id);
    if (code !== limitCase.code || milliseconds === undefined) {
      throw new Error(`${engine}: ${limitCase.name} ended ${code}, not ${limitCase.code}`);
    }
    samples.push(milliseconds);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

export default async function workflowLimitsBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const engine of ['worker', 'isolated'] as const) {
    for (const limitCase of cases) {
      const value = await timeToEnd(engine, limitCase);
      const name = `workflow limits: ${engine}: ${limitCase.name} to ${limitCase.code}`;
      rows.push(
        limitCase.informational
          ? { name, value, unit: 'ms', target: limitCase.informational }
          : { name, value, unit: 'ms', target: `< ${TARGET_MS} ms`, ok: value < TARGET_MS },
      );
    }
  }
  return rows;
}
