import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  type BackgroundHooks,
  type BackgroundRunner,
  type BackgroundWork,
  backgroundRunnerKey,
} from '../../src/core/background.js';
import { Context } from '../../src/core/context.js';
import type { ToolOutput } from '../../src/core/tool-contract.js';
import { bashTool } from '../../src/tools/bash.js';
import { isAlive, isGroupAlive, waitUntil } from '../helpers/process-state.js';
import { contentOf, fakeExecution, isErrorOutput, temporaryWorkspace } from './fake-execution.js';

/** A runner that starts everything it is given and keeps the hooks for the test. */
function recordingRunner() {
  const jobs = new Map<string, { work: BackgroundWork; hooks: BackgroundHooks }>();
  const runner: BackgroundRunner = {
    start(work) {
      const id = `${work.kind}-${jobs.size + 1}`;
      jobs.set(id, { work, hooks: work.run(id) });
      return { id };
    },
  };
  return { runner, jobs };
}

function setup(options: { runner?: boolean } = {}) {
  const workspace = temporaryWorkspace();
  const tool = bashTool({ workspace, background: true });
  const context = new Context();
  const { runner, jobs } = recordingRunner();
  if (options.runner !== false) context.provide(backgroundRunnerKey, runner);
  const start = async (args: Record<string, unknown>) => {
    const output = await tool.execute(
      { ...args, run_in_background: true },
      { ...fakeExecution(), context },
    );
    const metadata = typeof output === 'string' ? undefined : output.metadata;
    const id = metadata?.jobId as string;
    const job = jobs.get(id);
    assert.ok(job, contentOf(output));
    return { output, id, job, pid: metadata?.pid as number };
  };
  return { workspace, tool, start };
}

/** Reads output until `pattern` has appeared in what was read so far. */
async function readUntil(hooks: BackgroundHooks, pattern: RegExp): Promise<string> {
  let read = '';
  await waitUntil(() => {
    read += hooks.readOutput?.() ?? '';
    return pattern.test(read);
  }, `output matching ${pattern}`);
  return read;
}

test('run_in_background is offered only when the option is on', () => {
  const workspace = temporaryWorkspace();
  const plain = bashTool({ workspace });
  const offered = bashTool({ workspace, background: true });
  const properties = (output: ReturnType<typeof bashTool>) =>
    Object.keys(output.parameters.properties as Record<string, unknown>);
  assert.equal(properties(plain).includes('run_in_background'), false);
  assert.equal(properties(offered).includes('run_in_background'), true);
  // How to follow a background job is told where the option is: in its own description.
  const option = (offered.parameters.properties as Record<string, { description?: string }>)
    .run_in_background;
  assert.match(option?.description ?? '', /job_output reads it, job_kill stops it/);
  assert.doesNotMatch(plain.description, /job_output/);
});

test('without a runner in scope the call is a clear error and nothing runs', async () => {
  const { workspace, tool } = setup({ runner: false });
  const output: ToolOutput = await tool.execute(
    { command: 'touch ran', run_in_background: true },
    { ...fakeExecution(), context: new Context() },
  );
  assert.equal(isErrorOutput(output), true);
  assert.match(contentOf(output), /no background job runner is installed/);
  assert.equal(existsSync(join(workspace.root, 'ran')), false);
});

test('the call returns at once; output is read incrementally and the exit code sets the status', async () => {
  const { workspace, start } = setup();
  const { output, id, job } = await start({
    command: 'echo one; while [ ! -f go ]; do sleep 0.01; done; echo two; pwd; exit 3',
  });
  assert.equal(id, 'bash-1');
  assert.equal(
    contentOf(output),
    'Started background job bash-1: echo one; while [ ! -f go ]; do sleep 0.01; done; echo two; pwd; exit 3. Read its output with job_output (job_id "bash-1"); you will be told when it ends.',
  );
  assert.equal(job.work.kind, 'bash');
  assert.equal(job.work.owner, 'agent-1');
  assert.equal(await readUntil(job.hooks, /one\n/), 'one\n');
  assert.equal(job.hooks.readOutput?.(), '');
  writeFileSync(join(workspace.root, 'go'), '');
  assert.deepEqual(await job.hooks.done, { status: 'failed', summary: 'exit code 3' });
  assert.equal(job.hooks.readOutput?.(), `two\n${workspace.root}\n`);

  const second = await start({ command: 'printf fine' });
  assert.equal(second.id, 'bash-2');
  assert.deepEqual(await second.job.hooks.done, { status: 'completed', summary: 'exit code 0' });
  assert.equal(second.job.hooks.readOutput?.(), 'fine');
});

test('cancel kills the whole process group and settles as killed', async () => {
  const { workspace, start } = setup();
  const pidFile = join(workspace.root, 'child.pid');
  const { job, pid } = await start({ command: 'sleep 30 & echo $! > child.pid; wait' });
  await waitUntil(
    () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'),
    'the pid file',
  );
  const grandchild = Number(readFileSync(pidFile, 'utf8').trim());
  assert.equal(isAlive(grandchild), true);
  job.hooks.cancel('no longer needed');
  assert.deepEqual(await job.hooks.done, {
    status: 'killed',
    summary: 'killed: no longer needed',
  });
  await waitUntil(() => !isAlive(grandchild), 'the grandchild to die');
  await waitUntil(() => !isGroupAlive(pid), 'the process group to die');
  job.hooks.cancel('again');
});

test('a timeout kills the group and fails the job', async () => {
  const { start } = setup();
  const { job, pid } = await start({ command: 'echo started; sleep 30', timeout_ms: 200 });
  assert.deepEqual(await job.hooks.done, {
    status: 'failed',
    summary: 'killed after 200 ms (timeout)',
  });
  assert.equal(job.hooks.readOutput?.(), 'started\n');
  await waitUntil(() => !isGroupAlive(pid), 'the process group to die');
});

test('what the shell leaves behind in its group ends with the job', async () => {
  const { workspace, start } = setup();
  const { job, pid } = await start({ command: 'sleep 30 & echo $! > child.pid' });
  assert.deepEqual(await job.hooks.done, { status: 'completed', summary: 'exit code 0' });
  const grandchild = Number(readFileSync(join(workspace.root, 'child.pid'), 'utf8').trim());
  await waitUntil(() => !isAlive(grandchild), 'the leftover sleep to die');
  await waitUntil(() => !isGroupAlive(pid), 'the process group to die');
});

test('a shell that cannot start fails the job', async () => {
  const context = new Context();
  const { runner, jobs } = recordingRunner();
  context.provide(backgroundRunnerKey, runner);
  const tool = bashTool({
    workspace: temporaryWorkspace(),
    background: true,
    shell: '/nonexistent/shell',
  });
  await tool.execute({ command: 'true', run_in_background: true }, { ...fakeExecution(), context });
  const outcome = await jobs.get('bash-1')?.hooks.done;
  assert.equal(outcome?.status, 'failed');
  assert.match(outcome?.summary ?? '', /could not run \/nonexistent\/shell/);
});
