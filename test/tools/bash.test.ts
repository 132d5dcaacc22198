import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ToolOutput } from '../../src/core/tool-contract.js';
import { bashTool, killProcessGroup } from '../../src/tools/bash.js';
import { BoundedOutput } from '../../src/tools/bounded-output.js';
import { isAlive, isGroupAlive, waitUntil } from '../helpers/process-state.js';
import { contentOf, fakeExecution, isErrorOutput, temporaryWorkspace } from './fake-execution.js';

function setup(options: { outputLimit?: number } = {}) {
  const workspace = temporaryWorkspace();
  const tool = bashTool({ workspace, ...options });
  const run = (args: Record<string, unknown>, signal?: AbortSignal) =>
    Promise.resolve(tool.execute(args, fakeExecution(signal)));
  return { workspace, tool, run };
}

function metadataOf(output: ToolOutput): Record<string, unknown> {
  assert.ok(typeof output !== 'string' && output.metadata);
  return output.metadata;
}

test('runs in the workspace root and reports the exit code', async () => {
  const { workspace, run } = setup();
  const output = await run({ command: 'pwd; echo oops >&2; exit 3' });
  assert.equal(contentOf(output), `${workspace.root}\noops\n[exit code: 3]`);
  assert.equal(isErrorOutput(output), false);
  assert.equal(contentOf(await run({ command: 'true' })), '[exit code: 0]');
  assert.equal(contentOf(await run({ command: 'printf done' })), 'done\n[exit code: 0]');
});

test('long output keeps head and tail around a cut marker', async () => {
  const { run } = setup({ outputLimit: 20 });
  const output = contentOf(
    await run({ command: "printf 'A%.0s' $(seq 1 50); printf 'Z%.0s' $(seq 1 50)" }),
  );
  assert.equal(
    output,
    `${'A'.repeat(10)}\n… 80 characters cut …\n${'Z'.repeat(10)}\n[exit code: 0]`,
  );
});

test('a timeout kills the command and is an error result', async () => {
  const { run } = setup();
  const output = await run({ command: 'echo started; sleep 30', timeout_ms: 200 });
  assert.equal(contentOf(output), 'started\n[killed: timeout after 200 ms]');
  assert.equal(isErrorOutput(output), true);
  assert.equal(isAlive(metadataOf(output).pid as number), false);
});

test('aborting kills the whole process group and returns promptly', async () => {
  const { workspace, run } = setup();
  const pidFile = join(workspace.root, 'child.pid');
  const controller = new AbortController();
  const started = Date.now();
  const pending = run(
    { command: `sleep 30 & echo $! > child.pid; echo $!; wait` },
    controller.signal,
  );
  await waitUntil(
    () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'),
    'the pid file',
  );
  const childPid = Number(readFileSync(pidFile, 'utf8').trim());
  assert.equal(isAlive(childPid), true);
  controller.abort();
  const output = await pending;
  assert.ok(Date.now() - started < 10_000);
  assert.equal(contentOf(output), `${childPid}\n[killed: aborted]`);
  assert.equal(isErrorOutput(output), true);
  await waitUntil(() => !isAlive(childPid), 'the grandchild to die');
  const shellPid = metadataOf(output).pid as number;
  await waitUntil(() => !isAlive(shellPid), 'the shell to die');
  await waitUntil(() => !isGroupAlive(shellPid), 'the process group to die');
});

test('an already aborted signal runs nothing', async () => {
  const { run } = setup();
  const controller = new AbortController();
  controller.abort();
  const output = await run({ command: 'echo never' }, controller.signal);
  assert.equal(contentOf(output), '[killed: aborted]');
});

test('killProcessGroup tolerates a pid that is gone', () => {
  const { pid } = process;
  assert.doesNotThrow(() => killProcessGroup(2 ** 22 + (pid % 1000)));
});

test('BoundedOutput keeps everything under the limit and head plus tail over it', () => {
  const small = new BoundedOutput(10);
  small.append('abc');
  small.append('defghij');
  assert.equal(small.toString(), 'abcdefghij');
  const large = new BoundedOutput(4);
  for (const piece of ['ab', 'cd', 'ef', 'gh', 'ij']) large.append(piece);
  assert.equal(large.toString(), 'ab\n… 6 characters cut …\nij');
});

test('a shell that cannot start is a clear error', async () => {
  const tool = bashTool({ workspace: temporaryWorkspace(), shell: '/nonexistent/shell' });
  await assert.rejects(
    Promise.resolve().then(() => tool.execute({ command: 'true' }, fakeExecution())),
    /could not run \/nonexistent\/shell/,
  );
});
