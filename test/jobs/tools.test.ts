import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backgroundRunnerKey } from '../../src/core/background.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { deferred } from '../core/agent-fixture.js';
import { toolResults } from '../helpers/session-files.js';
import { type FakeJob, fakeJob, jobsRuntime } from './job-fixture.js';

const startFake = { name: 'start_fake', arguments: { label: '{{1}}' } };

const model = {
  rules: [
    {
      when: '^run (.*)$',
      steps: [
        { tools: [startFake] },
        {
          tools: [{ name: 'job_output', arguments: { job_id: '{{lastToolResult}}', wait: true } }],
        },
        { reply: 'done: {{lastToolResult}}' },
      ],
    },
    {
      when: '^peek (.*)$',
      steps: [
        { tools: [startFake] },
        {
          tools: [
            {
              name: 'job_output',
              arguments: { job_id: '{{lastToolResult}}', wait: true, timeout_ms: 5 },
            },
          ],
        },
        { reply: 'peeked: {{lastToolResult}}' },
      ],
    },
    {
      when: '^stop (\\S+)$',
      steps: [
        { tools: [{ name: 'job_kill', arguments: { job_id: '{{1}}', reason: 'enough' } }] },
        { reply: '{{lastToolResult}}' },
      ],
    },
    {
      when: '^stop and list (\\S+)$',
      steps: [
        { tools: [{ name: 'job_kill', arguments: { job_id: '{{1}}', reason: 'enough' } }] },
        { tools: [{ name: 'job_list' }] },
        { reply: 'stopped' },
      ],
    },
    {
      when: '^start a stubborn job and stop it$',
      steps: [
        { tools: [{ name: 'start_stubborn', arguments: { label: 'ignores cancel' } }] },
        { tools: [{ name: 'job_kill', arguments: { job_id: '{{lastToolResult}}' } }] },
        { tools: [{ name: 'job_list' }] },
        { reply: 'stopped' },
      ],
    },
    { when: '^list$', steps: [{ tools: [{ name: 'job_list' }] }, { reply: '{{lastToolResult}}' }] },
    { when: '^\\[job ', reply: 'noted' },
  ],
};

/**
 * `start_fake {label}`: starts a fake job through core's background runner, as a producer would.
 * It settles as soon as it is cancelled; `start_stubborn` makes one that ignores cancel.
 */
function starter(jobs: Map<string, FakeJob>, name = 'start_fake'): ToolDefinition {
  return {
    name,
    description: 'Starts a fake background job.',
    parameters: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
    execute(args: { label: string }, execution) {
      const settleOnCancel = name === 'start_fake';
      const job = fakeJob({ owner: execution.agentId, label: args.label, settleOnCancel });
      const { id } = execution.context.get(backgroundRunnerKey).start(job.work);
      jobs.set(`${execution.agentId}/${id}`, job);
      return id;
    },
  };
}

test('job_output with wait returns the output and the final status', async () => {
  const jobs = new Map<string, FakeJob>();
  const fixture = jobsRuntime(model, { tools: [starter(jobs)] });
  const { root, rootId, layer } = fixture;
  try {
    const waiting = deferred();
    const wait = layer.service.wait.bind(layer.service);
    layer.service.wait = (...args) => {
      const result = wait(...args);
      waiting.resolve();
      return result;
    };
    const turn = root.agent.prompt('run npm test');
    await waiting.promise;
    const job = jobs.get(`${rootId}/fake-1`);
    job?.print('hello from the job');
    job?.finish({ summary: 'exit 0' });
    const outcome = await turn;
    assert.equal(outcome.text, 'done: hello from the job\n[status: completed] exit 0');
    await root.agent.whenIdle();
    assert.equal(
      root.log.events.filter((event) => event.type === 'turn/start').length,
      1,
      'the wait reported the end; no notice turn follows',
    );
  } finally {
    await fixture.close();
  }
});

test('job_kill waits until the job has stopped: job_list in the next step shows it killed', async () => {
  const jobs = new Map<string, FakeJob>();
  const fixture = jobsRuntime(model, { tools: [starter(jobs)] });
  const { root, rootId } = fixture;
  try {
    const peek = await root.agent.prompt('peek npm run watch');
    assert.equal(peek.text, 'peeked: [status: running]');
    const stop = await root.agent.prompt('stop and list fake-1');
    assert.equal(stop.text, 'stopped');
    assert.deepEqual(
      toolResults(root.log.events, 'job_kill').map((result) => result.content),
      ['fake-1 has stopped. [status: killed: enough]'],
    );
    assert.deepEqual(jobs.get(`${rootId}/fake-1`)?.cancels, ['enough']);
    const [listed] = toolResults(root.log.events, 'job_list');
    assert.match(String(listed?.content), /^fake-1 {2}killed: enough {2}\d+s {2}npm run watch$/);
    await root.agent.whenIdle();
    assert.equal(
      root.log.events.filter((event) => event.type === 'turn/start').length,
      2,
      'job_kill reported the end: no notice turn follows',
    );
    const again = await root.agent.prompt('stop fake-1');
    assert.equal(again.text, 'fake-1 was already killed.');
    assert.deepEqual(checkSessionInvariants(root.log.events), []);
  } finally {
    await fixture.close();
  }
});

test('job_kill of a job that ignores cancel reports it killed once the kill grace has passed', async () => {
  const jobs = new Map<string, FakeJob>();
  const fixture = jobsRuntime(model, {
    tools: [starter(jobs, 'start_stubborn')],
    killGraceMs: 20,
  });
  const { root, rootId } = fixture;
  try {
    const stop = await root.agent.prompt('start a stubborn job and stop it');
    assert.equal(stop.text, 'stopped');
    assert.deepEqual(jobs.get(`${rootId}/fake-1`)?.cancels, ['stopped on request']);
    assert.deepEqual(
      toolResults(root.log.events, 'job_kill').map((result) => result.content),
      ['fake-1 has stopped. [status: killed: stopped on request]'],
    );
    const [listed] = toolResults(root.log.events, 'job_list');
    assert.match(
      String(listed?.content),
      /^fake-1 {2}killed: stopped on request {2}\d+s {2}ignores cancel$/,
    );
    const record = fixture.layer.service.get('fake-1', rootId);
    assert.match(record.summary ?? '', /did not stop within 20 ms/);
  } finally {
    await fixture.close();
  }
});

test('another agent cannot kill or read a job it does not own', async () => {
  const jobs = new Map<string, FakeJob>();
  const fixture = jobsRuntime(model, { tools: [starter(jobs)] });
  const { root, rootId, runtime } = fixture;
  try {
    await root.agent.prompt('peek sleep 100');
    const other = runtime.start();
    await other.agent.prompt('stop fake-1');
    const [refused] = toolResults(other.log.events, 'job_kill');
    assert.equal(refused?.isError, true);
    assert.equal(refused?.errorCode, 'NOT_OWNER');
    assert.deepEqual(jobs.get(`${rootId}/fake-1`)?.cancels, []);
    const list = await other.agent.prompt('list');
    assert.equal(list.text, 'You have no background jobs.');
  } finally {
    await fixture.close();
  }
});
