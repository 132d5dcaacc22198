/**
 * The jobs block restated after a compaction: one listing line per unsettled job (id, state,
 * age, label) and how to reach them; never output; nothing when no job is running.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobRecord } from '../../src/jobs/contract.js';
import { jobsStandingText } from '../../src/jobs/job-notice.js';

test('the jobs block lists each unsettled job with its state, age and label', () => {
  const now = 1_000_000;
  const records: JobRecord[] = [
    {
      id: 'bash-1',
      kind: 'bash',
      label: 'npm test',
      owner: 's',
      status: 'running',
      startedAt: now - 12_000,
    },
    {
      id: 'subagent-1',
      kind: 'subagent',
      label: 'review the diff',
      owner: 's',
      status: 'stopping',
      startedAt: now - 90_000,
    },
  ];
  assert.equal(
    jobsStandingText(records, now),
    [
      '# Background jobs',
      '- bash-1  running  12s  npm test',
      '- subagent-1  stopping  1m30s  review the diff',
      'Each reports when it ends; read its output with job_output, stop it with job_kill.',
    ].join('\n'),
  );
  assert.equal(jobsStandingText([], now), '');
});
