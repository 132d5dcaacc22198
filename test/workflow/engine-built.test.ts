/**
 * The built engine (dist/workflow/host.js with the bundled worker.cjs the build puts beside it)
 * under plain node, without tsx: a run completes, a spin after an await is ended by cancel, and
 * the process then exits on its own (no worker, timer or listener left). `npm test` builds
 * before running the tests.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const required = [
  'workflow/host.js',
  'workflow/worker.cjs',
  'core/context.js',
  'subagent/registry.js',
];

function distUrl(path: string): string {
  return JSON.stringify(pathToFileURL(`${dist}${path}`).href);
}

const program = `
const { Context } = await import(${distUrl('core/context.js')});
const { SubagentRegistry } = await import(${distUrl('subagent/registry.js')});
const { WorkerWorkflowService } = await import(${distUrl('workflow/host.js')});
const { workflowLog } = await import(${distUrl('workflow/contract.js')});
const context = new Context();
const registry = new SubagentRegistry(context);
const cancelled = [];
registry.register({
  name: 'fake',
  capabilities: { outputSchema: true, depthLimit: true, toolFilter: true, persona: true, inheritsParentContext: false },
  start(request) {
    let settle;
    const result = new Promise((resolve) => { settle = resolve; });
    const usage = { input: 1, output: 1 };
    let ended = false;
    const cancel = () => { if (ended) return; ended = true; cancelled.push(request.prompt); settle({ sessionId: 'c', output: '', stopReason: 'cancelled', usage }); };
    if (request.prompt.startsWith('hold')) request.signal?.addEventListener('abort', cancel, { once: true });
    else settle({ sessionId: 'c', output: 'echo ' + request.prompt, stopReason: 'completed', usage });
    return { id: 'c', result, cancel, dispose() {} };
  },
});
const service = new WorkerWorkflowService({
  context, registry, provider: 'fake', limits: { maxConcurrentAgents: 2, cancelGraceMs: 300 },
});
const parent = { sessionId: null, delegationDepth: 0 };
const meta = { name: 'built', description: 'the built engine' };
const completed = await service.start({
  meta, parent, args: { items: ['a', 'b'] }, budgetTokens: 1000,
  script: "const out = await pipeline(args.items, (item) => agent(item), (text) => text.toUpperCase()); return [...out, budget.total, budget.spent()];",
}).result;
const spinning = new Promise((resolve) => context.on(workflowLog, resolve));
const run = service.start({
  meta, parent, script: "agent('hold me'); await agent('quick'); log('spinning'); while (true) {}",
});
await spinning;
run.cancel('stop');
const stopped = await run.result;
process.stdout.write(JSON.stringify({
  completed: { stopReason: completed.stopReason, value: completed.value, agentsStarted: completed.agentsStarted },
  stopped: { stopReason: stopped.stopReason, code: stopped.error?.code },
  cancelled,
  liveWorkers: service.liveWorkers,
  execArgv: process.execArgv,
}));
`;

/** Runs `program` as an ES module in plain node (no tsx); its stdout, once it exited cleanly. */
async function runPlainNode(program: string): Promise<string> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const { code, stdout, stderr } = await new Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '--eval', program],
      { env, timeout: 60_000 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
  assert.equal(
    code,
    0,
    `plain node did not finish cleanly (a hang is killed after 60 s):\n${stderr}`,
  );
  return stdout;
}

test('the built engine runs its worker under plain node and lets the process exit', async () => {
  const missing = required.filter((path) => !existsSync(`${dist}${path}`));
  assert.deepEqual(
    missing,
    [],
    `dist/ lacks ${missing.join(', ')}: run \`npm run build\` first (\`npm test\` builds before the tests)`,
  );
  const stdout = await runPlainNode(program);
  assert.deepEqual(JSON.parse(stdout), {
    completed: { stopReason: 'completed', value: ['ECHO A', 'ECHO B', 1000, 4], agentsStarted: 2 },
    stopped: { stopReason: 'cancelled', code: 'CANCELLED' },
    cancelled: ['hold me'],
    liveWorkers: 0,
    execArgv: ['--input-type=module', '--eval', program],
  });
});

test('the built isolated engine (isolated-worker.cjs, QuickJS from node_modules) runs under plain node and lets the process exit', async () => {
  const isolatedProgram = program.replace(
    "provider: 'fake', limits:",
    "provider: 'fake', engine: 'isolated', limits:",
  );
  assert.notEqual(isolatedProgram, program);
  assert.ok(
    existsSync(`${dist}workflow/isolated-worker.cjs`),
    'the build writes isolated-worker.cjs',
  );
  const stdout = await runPlainNode(isolatedProgram);
  assert.deepEqual(JSON.parse(stdout), {
    completed: { stopReason: 'completed', value: ['ECHO A', 'ECHO B', 1000, 4], agentsStarted: 2 },
    stopped: { stopReason: 'cancelled', code: 'CANCELLED' },
    cancelled: ['hold me'],
    liveWorkers: 0,
    execArgv: ['--input-type=module', '--eval', isolatedProgram],
  });
});

const prewarmProgram = `
const { createRequire, syncBuiltinESMExports } = await import('node:module');
const threads = createRequire(import.meta.url)('node:worker_threads');
let started = 0;
threads.Worker = class extends threads.Worker {
  constructor(...options) {
    super(...options);
    started += 1;
  }
};
syncBuiltinESMExports();
const { Context } = await import(${distUrl('core/context.js')});
const { SubagentRegistry } = await import(${distUrl('subagent/registry.js')});
const { WorkerWorkflowService } = await import(${distUrl('workflow/host.js')});
const { prewarmWorkflowWorker } = await import(${distUrl('workflow/worker-spawn.js')});
prewarmWorkflowWorker();
const startedAhead = started;
const context = new Context();
const registry = new SubagentRegistry(context);
registry.register({
  name: 'fake',
  capabilities: { outputSchema: true, depthLimit: true, toolFilter: true, persona: true, inheritsParentContext: false },
  start(request) {
    const result = Promise.resolve({ sessionId: 'c', output: 'echo ' + request.prompt, stopReason: 'completed', usage: { input: 1, output: 1 } });
    return { id: 'c', result, cancel() {}, dispose() {} };
  },
});
const service = new WorkerWorkflowService({ context, registry, provider: 'fake' });
const run = service.start({
  meta: { name: 'warm', description: 'served by the thread started ahead' },
  parent: { sessionId: null, delegationDepth: 0 },
  args: { item: 'a' },
  script: "return await agent(args.item);",
});
const result = await run.result;
const startedForRun = started - startedAhead;
prewarmWorkflowWorker();
process.stdout.write(JSON.stringify({ stopReason: result.stopReason, value: result.value, liveWorkers: service.liveWorkers, startedAhead, startedForRun }));
`;

test('a worker started ahead serves the next run, and one never used lets the process exit', async () => {
  const stdout = await runPlainNode(prewarmProgram);
  assert.deepEqual(JSON.parse(stdout), {
    stopReason: 'completed',
    value: 'echo a',
    liveWorkers: 0,
    startedAhead: 1,
    startedForRun: 0,
  });
});
