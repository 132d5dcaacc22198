// How long the run-level limits take to end a run, on the built engine (`npm run build` first):
// a memory bomb after an await (SCRIPT_MEMORY at the default 256 MB) and a 10-million-element
// return (RESULT_TOO_LARGE at the default 16 MiB). Each time is from the script's `log` just
// before the bomb to the run's `workflow/end`. `node scripts/workflow-limits-timing.mjs [ROUNDS]
// [ENGINE]`; prints one JSON line per case. A measurement to quote, not a test.
import { Context } from '../dist/core/context.js';
import { SubagentRegistry } from '../dist/subagent/registry.js';
import { workflowEnd, workflowLog } from '../dist/workflow/contract.js';
import { WorkerWorkflowService } from '../dist/workflow/host.js';

const rounds = Number(process.argv[2] ?? 3);
const engine = process.argv[3];

const cases = {
  'memory bomb (objects)': `await agent('first'); log('go');
    const hoard = []; for (;;) hoard.push({ n: Math.random(), text: 'x' + Math.random() });`,
  'memory bomb (strings)': `await agent('first'); log('go');
    const hoard = []; for (;;) hoard.push('x'.repeat(1000) + Math.random());`,
  'memory bomb (1M-element arrays)': `await agent('first'); log('go');
    const chunks = []; for (;;) chunks.push(new Array(1024 * 1024).fill(1.5));`,
  '10-million-element return': `await agent('first'); log('go');
    return Array.from({ length: 10000000 }, (_, index) => index);`,
};

const context = new Context({ name: 'timing' });
const registry = new SubagentRegistry(context);
registry.register({
  name: 'fake',
  capabilities: {
    outputSchema: true,
    depthLimit: true,
    toolFilter: true,
    persona: true,
    inheritsParentContext: false,
  },
  start() {
    const result = Promise.resolve({
      sessionId: 'c',
      output: 'ok',
      stopReason: 'completed',
      usage: { input: 1, output: 1 },
    });
    return { id: 'c', result, cancel() {}, dispose() {} };
  },
});
const service = new WorkerWorkflowService({
  context,
  registry,
  provider: 'fake',
  ...(engine ? { engine } : {}),
});
const times = new Map();
context.on(workflowLog, (event) => times.set(event.runId, event.time));
context.on(workflowEnd, (event) => {
  const start = times.get(event.runId);
  times.set(event.runId, start === undefined ? undefined : event.time - start);
});

for (const [name, script] of Object.entries(cases)) {
  const milliseconds = [];
  let code;
  for (let round = 0; round < rounds; round += 1) {
    const run = service.start({
      meta: { name: 'timing', description: 'limit timing' },
      parent: { sessionId: null, delegationDepth: 0 },
      script,
    });
    const result = await run.result;
    code = result.error?.code ?? result.stopReason;
    if (process.env.TIMING_DEBUG) console.error(result.error?.message);
    milliseconds.push(times.get(run.id));
  }
  process.stdout.write(`${JSON.stringify({ case: name, code, milliseconds })}\n`);
}
