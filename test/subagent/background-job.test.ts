import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type JobRecord, jobSettled } from '../../src/jobs/contract.js';
import { installJobs, type JobsLayer } from '../../src/jobs/install.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { eventsOf, gateTool, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const backgroundCall = (description: string, prompt: string) => ({
  name: 'subagent',
  arguments: { description, prompt, run_in_background: true },
});

const model = {
  rules: [
    {
      when: '^start (\\w+) in the background$',
      steps: [
        { tools: [backgroundCall('{{1}} job', '{{1}} task')] },
        { reply: 'started: {{lastToolResult}}' },
      ],
    },
    {
      when: '^start two$',
      steps: [
        { tools: [backgroundCall('first', 'hang task'), backgroundCall('second', 'hang task')] },
        { reply: 'tried two' },
      ],
    },
    {
      when: '^bg task$',
      steps: [{ tools: [{ name: 'gate', arguments: { key: 'bg' } }] }, { reply: 'bg answer' }],
    },
    { when: '^hang task$', hang: true as const },
    {
      when: '^kill (\\S+)$',
      steps: [
        { tools: [{ name: 'job_kill', arguments: { job_id: '{{1}}' } }] },
        { reply: 'asked it to stop' },
      ],
    },
    { when: '^\\[job ', reply: 'noted: {{prompt}}' },
  ],
  default: { reply: 'ok: {{prompt}}' },
};

function setup(jobOptions: Parameters<typeof installJobs>[1] = {}) {
  const gate = gateTool();
  let jobs: JobsLayer | undefined;
  const fixture = subagentFixture({
    model,
    tools: [gate.tool],
    install: (runtime) => {
      jobs = installJobs(runtime, { killOnExit: false, ...jobOptions });
      return jobs.dispose;
    },
  });
  assert.ok(jobs);
  const settled: JobRecord[] = [];
  fixture.runtime.root.on(jobSettled, (record) => {
    settled.push(record);
  });
  return { fixture, gate, jobs, settled };
}

function messagesOf(fixture: SubagentFixture) {
  return eventsOf(fixture.root.log.events, 'user/message');
}

test('a background subagent is a job: its answer arrives as one notice that wakes the idle parent', async () => {
  const { fixture, gate, jobs } = setup();
  try {
    const first = await fixture.root.agent.prompt('start bg in the background');
    assert.equal(first.reason, 'completed');
    const childId = fixture.starts[0]?.runId;
    assert.ok(childId);
    assert.equal(
      first.text,
      `started: Started subagent ${childId} (bg job) in the background as job subagent-1. Its answer will arrive as a message; read its progress with job_output (job_id "subagent-1"), stop it with job_kill, and use send_message with subagent_id "${childId}" to add instructions.`,
    );
    assert.equal(fixture.root.agent.status, 'idle');
    assert.deepEqual(
      jobs.service.list(fixture.rootId).map((record) => [record.id, record.kind, record.status]),
      [['subagent-1', 'subagent', 'running']],
    );

    await gate.arrived('bg');
    assert.equal(jobs.service.read('subagent-1', fixture.rootId).output, '');
    gate.open('bg');
    await fixture.model.waitForRequest(/^\[job subagent-1 completed\]/);
    await fixture.root.agent.whenIdle();

    const record = jobs.service.get('subagent-1', fixture.rootId);
    assert.equal(fixture.model.calls.at(-1)?.prompt, messagesOf(fixture)[1]?.text);
    assert.equal(record.status, 'completed');
    assert.equal(record.summary, 'bg answer');
    assert.equal(
      jobs.service.read('subagent-1', fixture.rootId).output,
      '',
      'the answer is the summary; it is not repeated as unread output',
    );
    const messages = messagesOf(fixture);
    assert.deepEqual(
      messages.map((message) => [message.delivery, message.source ?? 'human']),
      [
        ['followup', 'human'],
        ['followup', 'job'],
      ],
      'one notice, from the job; none from the child registry',
    );
    assert.equal(messages[1]?.text, '[job subagent-1 completed] bg job\nbg answer');
    assert.deepEqual(
      eventsOf(fixture.root.log.events, 'job/end').map((end) => [end.jobId, end.status]),
      [['subagent-1', 'completed']],
    );
    assert.deepEqual(checkSessionInvariants(fixture.root.log.events), []);
  } finally {
    await fixture.close();
  }
});

test('the child stays continuable after its job has ended', async () => {
  const { fixture, gate } = setup();
  try {
    await fixture.root.agent.prompt('start bg in the background');
    const childId = fixture.starts[0]?.runId as string;
    gate.open('bg');
    await fixture.model.waitForRequest(/^\[job subagent-1 completed\]/);
    await fixture.root.agent.whenIdle();
    fixture.services.children.sendMessage({ sessionId: fixture.rootId }, childId, 'more please');
    await fixture.model.waitForRequest(/^\[subagent \S+ \(bg job\) finished\]/);
    await fixture.root.agent.whenIdle();
    const sources = messagesOf(fixture).map((message) => message.source ?? 'human');
    assert.deepEqual(sources, ['human', 'job', 'subagent'], 'later turns notify as before');
  } finally {
    await fixture.close();
  }
});

test('job_kill cancels the child and the job ends killed', async () => {
  const { fixture, jobs, settled } = setup();
  try {
    await fixture.root.agent.prompt('start hang in the background');
    const childId = fixture.starts[0]?.runId as string;
    await fixture.model.waitForRequest(/^hang task$/);
    await fixture.root.agent.prompt('kill subagent-1');
    const end = await fixture.waitForEnd((event) => event.runId === childId);
    assert.equal(end.stopReason, 'cancelled');
    await fixture.root.agent.whenIdle();
    assert.equal(settled.length, 1);
    assert.equal(settled[0]?.status, 'killed');
    assert.equal(jobs.service.get('subagent-1', fixture.rootId).status, 'killed');
    const childEnd = eventsOf(fixture.load(childId).events, 'turn/end');
    assert.deepEqual(
      childEnd.map((turn) => turn.reason),
      ['aborted'],
    );
    assert.equal(
      messagesOf(fixture).some((message) => message.source === 'subagent'),
      false,
      'the child registry sent no notice of its own',
    );
  } finally {
    await fixture.close();
  }
});

test('a job the runner refuses starts no child', async () => {
  const { fixture } = setup({ maxPerOwner: 1 });
  try {
    const outcome = await fixture.root.agent.prompt('start two');
    assert.equal(outcome.reason, 'completed');
    const results = eventsOf(fixture.root.log.events, 'tool/result');
    assert.deepEqual(
      results.map((result) => [result.isError, result.errorCode ?? null]),
      [
        [false, null],
        [true, 'JOB_CAP'],
      ],
    );
    assert.equal(fixture.starts.length, 1);
  } finally {
    await fixture.close();
  }
});
