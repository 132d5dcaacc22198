/**
 * Code Mode figures, on the built engine (`npm run build` first): the start of a `run_code`
 * program (a warm engine; `run()` of `return 1` to its outcome, p50), and the overhead of an
 * inner tool call against the same call made natively: one agent turn whose model calls `echo`
 * N times, natively in one step or from one program, both through the whole pipeline and log.
 */
import type { ToolDefinition } from '../src/core/tool-contract.js';
import { importBuilt } from './built.js';
import type { BenchRow } from './run.js';

const { createProgramRunner } = await importBuilt<
  typeof import('../src/code-mode/program-runner.js')
>('code-mode/program-runner.js');
const { installCodeMode } =
  await importBuilt<typeof import('../src/code-mode/install.js')>('code-mode/install.js');
const { Context } = await importBuilt<typeof import('../src/core/context.js')>('core/context.js');
const { AgentRuntime } =
  await importBuilt<typeof import('../src/core/runtime.js')>('core/runtime.js');
const { createScriptedModel } =
  await importBuilt<typeof import('../src/llm/scripted-model.js')>('llm/scripted-model.js');
const { temporaryFolder } = await import('../test/helpers/temporary-folder.js');

const STARTS = 40;
const CALLS = 200;
const ROUNDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function programStart(): Promise<number> {
  const runner = createProgramRunner();
  const samples: number[] = [];
  try {
    for (let index = 0; index < STARTS + 3; index += 1) {
      const started = performance.now();
      const outcome = await runner.run({
        code: 'return 1',
        toolNames: [],
        callTool: async () => ({ ok: true, text: '' }),
        limits: { timeoutMs: 10_000, memoryMb: 64, outputBytes: 65_536 },
        signal: new AbortController().signal,
      });
      if (outcome.kind !== 'returned') throw new Error(`the program ended ${outcome.kind}`);
      if (index >= 3) samples.push(performance.now() - started);
    }
  } finally {
    await runner.close();
  }
  return median(samples);
}

const echo: ToolDefinition = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  concurrencySafe: true,
  execute: (args: { text: string }) => args.text,
};

/** Milliseconds of one turn that makes CALLS echo calls natively (one step) or from one program. */
async function turnMs(presentation: 'native' | 'code'): Promise<number> {
  const calls = Array.from({ length: CALLS }, (_, index) => ({
    name: 'echo',
    arguments: { text: `call ${index}` },
  }));
  const program = `for (let index = 0; index < ${CALLS}; index += 1) await tools.echo({ text: 'call ' + index }); return 'done';`;
  const step =
    presentation === 'native'
      ? { tools: calls }
      : { tools: [{ name: 'run_code', arguments: { code: program } }] };
  const model = createScriptedModel(
    { default: { steps: [step, { reply: 'ok' }] } },
    { name: 'bench' },
  );
  const home = temporaryFolder('loom-bench-code-');
  const runtime = new AgentRuntime({
    root: new Context(),
    home,
    cwd: home,
    resolveModel: () => model,
  });
  runtime.offerTools([echo]);
  const layer = installCodeMode(runtime, { presentation });
  const samples: number[] = [];
  try {
    for (let round = 0; round < ROUNDS + 1; round += 1) {
      const handle = runtime.start();
      const started = performance.now();
      const outcome = await handle.agent.prompt('go');
      const elapsed = performance.now() - started;
      handle.close();
      if (outcome.reason !== 'completed') throw new Error(`the turn ended ${outcome.reason}`);
      if (round > 0) samples.push(elapsed);
    }
  } finally {
    await layer.dispose();
  }
  return median(samples);
}

export default async function codeModeBench(): Promise<BenchRow[]> {
  const start = await programStart();
  const native = await turnMs('native');
  const code = await turnMs('code');
  const overhead = (code - native) / CALLS;
  return [
    {
      name: 'code mode: run_code program start (warm engine, `return 1`, p50)',
      value: start,
      unit: 'ms',
      target: '< 20 ms',
      ok: start < 20,
    },
    {
      name: `code mode: turn of ${CALLS} native echo calls (one step)`,
      value: native,
      unit: 'ms',
    },
    {
      name: `code mode: turn of one program making ${CALLS} echo calls one after another`,
      value: code,
      unit: 'ms',
    },
    {
      name: 'code mode: overhead of an inner call over the same native call',
      value: overhead,
      unit: 'ms',
      target: '< 1 ms',
      ok: overhead < 1,
    },
  ];
}
