/**
 * One hook's process: the event on stdin, stdout and stderr apart, its exit code; its time
 * limit kills the whole process group; and its environment holds no credential's value.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CredentialVariables } from '../../src/core/credential-variables.js';
import { runHookProcess } from '../../src/project/hook-process.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

/** Whether `pid` is gone (or a zombie nobody reaped yet, which runs nothing). */
function gone(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  return / Z /.test(readFileSync(stat, 'utf8'));
}

test('a hook reads the event on stdin; stdout, stderr and the exit code come back apart', async () => {
  const cwd = temporaryFolder();
  const result = await runHookProcess({
    command: 'read -r line; echo "got $line"; echo "in $(pwd)" >&2; exit 2',
    input: '{"hook_event_name":"PreToolUse"}\n',
    cwd,
    timeoutMs: 30_000,
    credentials: undefined,
  });
  assert.equal(result.exitCode, 2);
  assert.equal(result.stdout, 'got {"hook_event_name":"PreToolUse"}\n');
  assert.equal(result.stderr, `in ${cwd}\n`);
  assert.equal(result.timedOut, false);
});

test('a hook that never reads its stdin still ends normally', async () => {
  const result = await runHookProcess({
    command: 'exit 0',
    input: 'x'.repeat(1_000_000),
    cwd: temporaryFolder(),
    timeoutMs: 30_000,
    credentials: undefined,
  });
  assert.equal(result.exitCode, 0);
});

test('its time limit kills the whole process group, a background child too', async () => {
  const cwd = temporaryFolder();
  const pidFile = join(cwd, 'child.pid');
  const result = await runHookProcess({
    command: `sleep 600 & echo $! > ${pidFile}; wait`,
    input: '{}',
    cwd,
    timeoutMs: 1500,
    credentials: undefined,
  });
  assert.equal(result.timedOut, true);
  assert.equal(result.exitCode, null);
  const child = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(child > 0);
  assert.equal(gone(child), true, `the hook's child ${child} outlived its time limit`);
});

test('an aborted signal kills the hook', async () => {
  const stop = new AbortController();
  const running = runHookProcess({
    command: 'echo started; exec sleep 600',
    input: '{}',
    cwd: temporaryFolder(),
    timeoutMs: 600_000,
    credentials: undefined,
    signals: [stop.signal],
  });
  stop.abort();
  const result = await running;
  assert.equal(result.cancelled, true);
  assert.equal(result.exitCode, null);
});

test('a hook never sees a credential: registered names and credential-like ones are left out', async () => {
  const cwd = temporaryFolder();
  const environment = {
    PATH: process.env.PATH,
    FAKE_SERVICE_API_KEY: 'fake-secret-value-123456',
    ROUTE_KEY_VARIABLE: 'registered-secret-value-654321',
    GITHUB_TOKEN: 'fake-token-value-abcdef',
    PLAIN_SETTING: 'visible',
  };
  const credentials = new CredentialVariables(environment);
  credentials.add(['ROUTE_KEY_VARIABLE']);
  const result = await runHookProcess({
    command: 'env',
    input: '{}',
    cwd,
    timeoutMs: 30_000,
    credentials,
    base: environment,
  });
  assert.equal(result.exitCode, 0);
  assert.doesNotMatch(result.stdout, /fake-secret-value|registered-secret-value|fake-token-value/);
  assert.doesNotMatch(result.stdout, /FAKE_SERVICE_API_KEY|ROUTE_KEY_VARIABLE|GITHUB_TOKEN/);
  assert.match(result.stdout, /^PLAIN_SETTING=visible$/m);
  assert.match(result.stdout, new RegExp(`^CLAUDE_PROJECT_DIR=${cwd}$`, 'm'));
});
