import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { isAlive, processesIn, waitUntil } from './process-state.js';
import { temporaryFolder } from './temporary-folder.js';

test('processesIn throws where there is no /proc instead of finding nothing', () => {
  const missing = join(temporaryFolder(), 'proc');
  assert.throws(
    () => processesIn('/', /sleep/, missing),
    new RegExp(`process checks read ${missing}, which this system does not have`),
  );
});

test('processesIn finds a process working in a folder, and not once it is gone', async () => {
  const folder = temporaryFolder();
  const sleeper = spawn('sleep', ['30'], { cwd: folder, stdio: 'ignore' });
  const pid = sleeper.pid ?? assert.fail('sleep did not start');
  const exited = new Promise((resolve) => sleeper.once('exit', resolve));
  await waitUntil(() => processesIn(folder, /^sleep 30$/).includes(pid), 'sleep to show up');
  assert.deepEqual(processesIn(folder, /^sleep 29$/), []);
  sleeper.kill('SIGKILL');
  await exited;
  assert.equal(isAlive(pid), false);
  assert.deepEqual(processesIn(folder, /^sleep 30$/), []);
});
