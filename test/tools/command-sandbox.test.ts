/**
 * The `bash` tool's sandbox seam (`tools/command-sandbox`): a refusal is the result and nothing
 * runs; a launcher runs the shell under it, with the sandbox's environment, its note added to a
 * failed command's result, and `ended` called once, foreground and background alike.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { runCommandJob } from '../../src/tools/background-bash.js';
import { bashTool } from '../../src/tools/bash.js';
import { type CommandSandbox, commandSandboxKey } from '../../src/tools/command-sandbox.js';
import { contentOf, fakeExecution, isErrorOutput, temporaryWorkspace } from './fake-execution.js';

function withSandbox(sandbox: CommandSandbox): Context {
  const context = new Context();
  context.provide(commandSandboxKey, sandbox);
  return context;
}

test('a refused command is the result, and nothing runs', async () => {
  const workspace = temporaryWorkspace();
  const tool = bashTool({ workspace });
  const seen: boolean[] = [];
  const context = withSandbox({
    prepare: (request) => {
      seen.push(request.outsideSandbox);
      return { kind: 'refused', message: 'bash was not run: no bwrap' };
    },
  });
  const output = await tool.execute(
    { command: 'touch ran', outside_sandbox: true },
    fakeExecution(undefined, context),
  );
  assert.equal(contentOf(output), 'bash was not run: no bwrap');
  assert.ok(isErrorOutput(output));
  assert.deepEqual(seen, [true]);
  assert.ok(!existsSync(join(workspace.root, 'ran')));
});

test('a launcher runs the shell under it with its environment; a failure gets the note; ended once', async () => {
  const workspace = temporaryWorkspace();
  const tool = bashTool({ workspace });
  let ended = 0;
  const context = withSandbox({
    prepare: (request) => ({
      kind: 'sandboxed',
      launch: {
        launcher: ['/usr/bin/env', 'UNDER_LAUNCHER=yes'],
        env: { ...request.env, FROM_SANDBOX: 'set' },
        ended: () => {
          ended += 1;
        },
        explain: (output) => (output.includes('denied-here') ? '[sandbox: note]' : undefined),
      },
    }),
  });
  const passed = await tool.execute(
    { command: 'echo "$UNDER_LAUNCHER $FROM_SANDBOX"' },
    fakeExecution(undefined, context),
  );
  assert.equal(contentOf(passed), 'yes set\n[exit code: 0]');
  const failed = await tool.execute(
    { command: 'echo denied-here; exit 1' },
    fakeExecution(undefined, context),
  );
  assert.equal(contentOf(failed), 'denied-here\n[exit code: 1]\n[sandbox: note]');
  assert.equal(ended, 2);
});

test('a background job runs under the launcher; a failed one ends with the note, and ended once', async () => {
  const workspace = temporaryWorkspace();
  let ended = 0;
  const job = runCommandJob('echo "$UNDER_LAUNCHER"; echo denied-here; exit 2', 10_000, {
    shell: 'bash',
    cwd: workspace.root,
    outputLimit: 10_000,
    drainGraceMs: 50,
    env: process.env,
    launch: {
      launcher: ['/usr/bin/env', 'UNDER_LAUNCHER=yes'],
      env: process.env,
      ended: () => {
        ended += 1;
      },
      explain: (output) => (output.includes('denied-here') ? '[sandbox: note]' : undefined),
    },
  });
  const outcome = await job.hooks.done;
  assert.deepEqual(outcome, { status: 'failed', summary: 'exit code 2; [sandbox: note]' });
  assert.equal(job.hooks.readOutput?.(), 'yes\ndenied-here\n');
  assert.equal(ended, 1);
});
