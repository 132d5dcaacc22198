import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addSessionRepairer } from '../../src/core/session-load.js';
import { SessionLog } from '../../src/core/session-log.js';
import { repairOpenJobs } from '../../src/jobs/session-repair.js';
import { checkPairs } from '../../src/testing/invariants.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('a job left open by a crash is closed as killed when the session is opened, once', () => {
  const directory = temporaryFolder('loom-job-repair-');
  const log = SessionLog.create({ directory });
  log.append('job/start', { jobId: 'bash-1', kind: 'bash', label: 'sleep 30' });
  log.append('job/start', { jobId: 'bash-2', kind: 'bash', label: 'echo hi' });
  log.append('job/end', { jobId: 'bash-2', status: 'completed', summary: 'exit code 0' });
  log.close();

  const undo = addSessionRepairer(repairOpenJobs);
  try {
    const first = SessionLog.open(log.path);
    const events = [...first.events];
    first.close();
    const second = SessionLog.open(log.path);
    const again = [...second.events];
    second.close();

    const ends = events.filter((event) => event.type === 'job/end').map((event) => event.data);
    assert.deepEqual(ends, [
      { jobId: 'bash-2', status: 'completed', summary: 'exit code 0' },
      {
        jobId: 'bash-1',
        status: 'killed',
        summary: 'the process ended before the job settled',
        reason: 'the process ended',
      },
    ]);
    assert.equal(again.length, events.length, 'a second open adds nothing');
    const key = (event: { data: unknown }) => (event.data as { jobId?: string }).jobId;
    assert.deepEqual(checkPairs(events, { start: 'job/start', end: 'job/end', key }), []);
  } finally {
    undo();
  }
});
