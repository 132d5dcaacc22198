/**
 * Run as its own process by exit.test.ts: installs the jobs layer, starts a real child process as
 * a background job of a fresh session, prints `{sessionId, pid}` and exits with the job running.
 */
import { spawn } from 'node:child_process';
import { Context } from '../../src/core/context.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import { installJobs } from '../../src/jobs/install.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';

const home = process.argv[2] ?? '';
const model = createScriptedModel({ rules: [], default: { reply: 'ok' } }, { name: 'exit' });
const runtime = new AgentRuntime({
  root: new Context(),
  home,
  cwd: home,
  resolveModel: () => model,
});
const layer = installJobs(runtime);
const handle = runtime.start();
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
layer.service.start({
  kind: 'sleep',
  label: 'sleep forever',
  owner: handle.agent.id,
  run: () => ({
    cancel: () => {
      child.kill('SIGKILL');
    },
    done: new Promise((resolve) => {
      child.on('exit', (_code, signal) =>
        resolve({ status: 'killed', summary: `signal ${signal}` }),
      );
    }),
  }),
});
child.on('spawn', () => {
  process.stdout.write(`${JSON.stringify({ sessionId: handle.agent.id, pid: child.pid })}\n`);
  process.exit(0);
});
