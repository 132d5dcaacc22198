import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jobNotice, listingLine, statusLine } from '../../src/jobs/job-notice.js';
import { JobOutput } from '../../src/jobs/job-output.js';

test('output under the limit is returned whole, once', () => {
  const output = new JobOutput(100);
  assert.equal(output.hasUnread, false);
  output.append('one ');
  output.append('two');
  assert.equal(output.hasUnread, true);
  assert.equal(output.take(), 'one two');
  assert.equal(output.take(), '');
  assert.equal(output.hasUnread, false);
});

test('overflow drops whole old chunks first and counts every dropped byte', () => {
  const output = new JobOutput(6);
  output.append('aaaa');
  output.append('bbbb');
  output.append('cc');
  assert.equal(output.take(), '[… 4 bytes of output dropped]\nbbbbcc');
});

test('overflow never splits a UTF-8 character', () => {
  const output = new JobOutput(4);
  output.append('a€€');
  assert.equal(output.take(), '[… 4 bytes of output dropped]\n€');
});

test('a drop alone still counts as unread', () => {
  const output = new JobOutput(1);
  output.append('xy');
  output.take();
  output.append('é');
  assert.equal(output.hasUnread, true);
  assert.equal(output.take(), '[… 2 bytes of output dropped]\n');
});

const record = {
  id: 'bash-2',
  kind: 'bash',
  label: 'npm test',
  owner: 'agent-a',
  startedAt: 0,
};

test('status lines name the status, the summary or the kill reason', () => {
  assert.equal(statusLine({ ...record, status: 'running' }), '[status: running]');
  assert.equal(statusLine({ ...record, status: 'stopping', reason: 'x' }), '[status: stopping]');
  assert.equal(
    statusLine({ ...record, status: 'completed', summary: 'exit 0' }),
    '[status: completed] exit 0',
  );
  assert.equal(
    statusLine({ ...record, status: 'killed', summary: 'signal', reason: 'enough' }),
    '[status: killed: enough]',
  );
  assert.equal(
    statusLine({ ...record, status: 'failed', summary: 'exit 1' }),
    '[status: failed] exit 1',
  );
});

test('a notice is short and points at unread output', () => {
  const settled = { ...record, status: 'completed' as const, summary: 'exit 0', endedAt: 65_000 };
  assert.equal(jobNotice(settled, false), '[job bash-2 completed] npm test\nexit 0');
  assert.equal(
    jobNotice(settled, true),
    '[job bash-2 completed] npm test\nexit 0\nIt has unread output: read it with job_output.',
  );
  assert.equal(listingLine(settled, 1_000_000), 'bash-2  completed  1m5s  npm test');
  assert.equal(
    listingLine({ ...record, status: 'running' }, 3_000),
    'bash-2  running  3s  npm test',
  );
});
