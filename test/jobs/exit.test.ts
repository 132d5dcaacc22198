import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SessionStore } from '../../src/core/session-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const script = fileURLToPath(new URL('./exit-script.ts', import.meta.url));

/** Gone, or a zombie waiting for a parent that will reap it: either way nothing runs. */
function isRunning(pid: number): boolean {
  const status = join('/proc', String(pid), 'status');
  if (existsSync('/proc/self/status')) {
    return existsSync(status) && !/^State:\s+Z/m.test(readFileSync(status, 'utf8'));
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('at process exit running jobs are killed and logged as killed', () => {
  const home = temporaryFolder('loom-jobs-exit-');
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, home], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const { sessionId, pid } = JSON.parse(run.stdout) as { sessionId: string; pid: number };
  const { events } = loadSessionFile(new SessionStore(home).pathOf(sessionId));
  const ends = events.filter((event) => event.type === 'job/end').map((event) => event.data);
  assert.deepEqual(ends, [
    {
      jobId: 'sleep-1',
      status: 'killed',
      summary: 'stopped without waiting for it to end',
      reason: 'the process exited',
    },
  ]);
  assert.equal(isRunning(pid), false, `the job's process ${pid} outlived its parent`);
});
