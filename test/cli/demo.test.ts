/**
 * `npm run demo` as a user runs it (`node scripts/demo.mjs` in a child process, its own LOOM_HOME
 * and TMPDIR): it says its answers are scripted, prints no raw tool output as the answer, counts
 * the workflow's children as they happened, says its workflow run exited 3 for the child that
 * fails on purpose (and still exits 0 itself), and removes its scratch folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('the demo says it is scripted, counts its children, expects exit 3 for its failing child and cleans up after itself', async () => {
  const home = temporaryFolder();
  const scratchParent = temporaryFolder();
  const child = spawn(process.execPath, [resolve('scripts/demo.mjs')], {
    cwd: scratchParent,
    env: { ...process.env, LOOM_HOME: home, TMPDIR: scratchParent },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  assert.equal(code, 0, stderr);

  assert.match(stderr, /the model is scripted \(examples\/demo\/model\.json\)/);
  assert.match(stdout, /^\(scripted answer\) Fixed the two typos/m);
  assert.doesNotMatch(stdout, /\[exit code: \d+\]/);

  const started = stderr.match(/^agent #\d+ started/gm)?.length ?? 0;
  const failed = stderr.match(/^agent #\d+ failed/gm)?.length ?? 0;
  assert.ok(started > 10 && failed > 0, stderr);
  assert.match(
    stderr,
    new RegExp(
      `^${started} children started, ${started - failed} succeeded, ${failed} failed$`,
      'm',
    ),
  );
  assert.match(stderr, /^failed agents of run \S+:$/m, 'the run itself lists its failed agents');
  assert.match(
    stderr,
    new RegExp(
      `^exit 3, as expected: the script completed, but ${failed} of its children failed`,
      'm',
    ),
  );
  const value = JSON.parse(stdout.slice(stdout.indexOf('\n{') + 1)) as {
    listed: number;
    reviewed: number;
    unaudited: string[];
  };
  assert.equal(value.reviewed, value.listed - value.unaudited.length);

  assert.deepEqual(
    readdirSync(scratchParent).filter((name) => name.startsWith('loom-demo-')),
    [],
  );
  assert.ok(readdirSync(resolve(home, 'sessions')).length > 0, 'the demo used LOOM_HOME');
});
