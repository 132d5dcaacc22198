import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backgroundRunnerKey } from '../../src/core/background.js';
import { jobServiceKey } from '../../src/jobs/contract.js';
import { checkPairs, checkSessionInvariants } from '../../src/testing/invariants.js';
import { fakeJob, jobsRuntime } from './job-fixture.js';

const model = { rules: [], default: { reply: 'ok' } };
const jobPairs = {
  start: 'job/start',
  end: 'job/end',
  key: (event: { data: unknown }) => (event.data as { jobId?: string }).jobId,
};

test('the layer provides one service under both keys and job tools on every agent', async () => {
  const fixture = jobsRuntime(model);
  const { runtime, layer, root } = fixture;
  try {
    assert.equal(runtime.root.find(jobServiceKey), layer.service);
    assert.equal(root.context.find(backgroundRunnerKey), layer.service);
    const child = runtime.start();
    const names = child.tools.visible().map((tool) => tool.name);
    for (const name of ['job_output', 'job_list', 'job_kill'])
      assert.ok(names.includes(name), name);
  } finally {
    await fixture.close();
  }
});

test('dispose kills every job, logs its end, and removes services and tools', async () => {
  const fixture = jobsRuntime(model);
  const { runtime, layer, root, rootId } = fixture;
  const job = fakeJob({ owner: rootId });
  layer.service.start(job.work);
  layer.dispose();
  assert.equal(job.cancels.length, 1);
  assert.equal(layer.service.get('fake-1', rootId).status, 'killed');
  assert.equal(runtime.root.find(jobServiceKey), undefined);
  assert.equal(runtime.root.find(backgroundRunnerKey), undefined);
  assert.ok(!root.tools.visible().some((tool) => tool.name.startsWith('job_')));
  assert.deepEqual(checkSessionInvariants(root.log.events), []);
  assert.deepEqual(checkPairs(root.log.events, jobPairs), []);
  assert.ok(
    !runtime
      .start()
      .tools.visible()
      .some((tool) => tool.name.startsWith('job_')),
  );
  await fixture.close();
});
