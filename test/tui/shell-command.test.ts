/**
 * `!command`: the person's shell command runs in the workspace without Loom's credentials, Esc
 * stops it, and its output goes to the agent as a steer while a turn runs or an inject otherwise.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Agent } from '../../src/core/agent.js';
import { Context } from '../../src/core/context.js';
import {
  runShellCommand,
  SHELL_SOURCE,
  shareShellOutput,
  shellMessage,
} from '../../src/tui/shell-command.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('a command runs in the workspace and reports its output and exit code', async () => {
  const cwd = temporaryFolder();
  const result = await runShellCommand('pwd; echo oops >&2; exit 3', {
    cwd,
    context: new Context(),
  });
  assert.equal(result.exitCode, 3);
  assert.equal(result.stopped, false);
  assert.match(result.output, new RegExp(`^${cwd}\\n`));
  assert.match(result.output, /oops/);
  assert.match(
    shellMessage(result),
    /^I ran `pwd; echo oops >&2; exit 3` in the workspace \(exit code 3\)/,
  );
});

test('credentials stay out of the command, unless passed through on purpose', async () => {
  process.env.LOOM_TEST_SHELL_TOKEN = 'secret-value';
  process.env.LOOM_TEST_PASSED_TOKEN = 'passed-value';
  try {
    const result = await runShellCommand(
      'echo "[$LOOM_TEST_SHELL_TOKEN] [$LOOM_TEST_PASSED_TOKEN]"',
      { cwd: temporaryFolder(), context: new Context(), passthrough: ['LOOM_TEST_PASSED_TOKEN'] },
    );
    assert.equal(result.output.trim(), '[] [passed-value]');
  } finally {
    delete process.env.LOOM_TEST_SHELL_TOKEN;
    delete process.env.LOOM_TEST_PASSED_TOKEN;
  }
});

test('aborting stops the command and says so', async () => {
  const controller = new AbortController();
  const running = runShellCommand('echo started; exec sleep 30', {
    cwd: temporaryFolder(),
    context: new Context(),
    signal: controller.signal,
  });
  controller.abort();
  const result = await running;
  assert.equal(result.stopped, true);
  assert.equal(result.exitCode, null);
  assert.match(shellMessage(result), /\(stopped by the user\)/);
});

test('the output steers a running turn and waits for the next turn of an idle agent', () => {
  const calls: Array<[string, string, string | undefined]> = [];
  const agent = (status: 'idle' | 'running') =>
    ({
      status,
      steer: (text: string, options: { source?: string }) =>
        calls.push(['steer', text, options.source]),
      inject: (text: string, options: { source?: string }) =>
        calls.push(['inject', text, options.source]),
    }) as unknown as Agent;
  const result = { command: 'ls', output: 'a.txt\n', exitCode: 0, stopped: false };
  assert.equal(shareShellOutput(agent('running'), result), 'steer');
  assert.equal(shareShellOutput(agent('idle'), result), 'inject');
  const message = shellMessage(result);
  assert.deepEqual(calls, [
    ['steer', message, SHELL_SOURCE],
    ['inject', message, SHELL_SOURCE],
  ]);
  assert.equal(message, 'I ran `ls` in the workspace (exit code 0). Its output:\na.txt');
});
