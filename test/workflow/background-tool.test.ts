import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type JobRecord, jobSettled } from '../../src/jobs/contract.js';
import { installJobs, type JobsLayer } from '../../src/jobs/install.js';
import { WorkerWorkflowService } from '../../src/workflow/host.js';
import { installWorkflows, type WorkflowLayer } from '../../src/workflow/install.js';
import { eventsOf, gateTool, subagentFixture } from '../subagent/subagent-fixture.js';

const meta = { name: 'shouter', description: 'Shouts a word', phases: [{ title: 'shout' }] };
const script = [
  "phase('shout');",
  "log('about to shout');",
  "const word = await agent('shout ' + args.word, { label: args.word });",
  'return { word };',
].join('\n');

const workflowCall = (word: string, background = true) => ({
  name: 'workflow',
  arguments: { meta, script, args: { word }, ...(background ? { run_in_background: true } : {}) },
});

const model = {
  rules: [
    {
      when: '^shout in the background: (\\w+)$',
      steps: [{ tools: [workflowCall('{{1}}')] }, { reply: 'started: {{lastToolResult}}' }],
    },
    {
      when: '^shout now: (\\w+)$',
      steps: [{ tools: [workflowCall('{{1}}', false)] }, { reply: '{{lastToolResult}}' }],
    },
    {
      when: '^shout (\\w+)$',
      steps: [{ tools: [{ name: 'gate', arguments: { key: '{{1}}' } }] }, { reply: '{{1}}!' }],
    },
    {
      when: '^kill (\\S+)$',
      steps: [
        { tools: [{ name: 'job_kill', arguments: { job_id: '{{1}}' } }] },
        { reply: 'asked it to stop' },
      ],
    },
    { when: '^\\[job ', reply: 'noted' },
  ],
};

function setup(options: { jobs?: boolean } = {}) {
  const gate = gateTool();
  let jobs: JobsLayer | undefined;
  let workflows: WorkflowLayer | undefined;
  const fixture = subagentFixture({
    model,
    tools: [gate.tool],
    install: (runtime, services) => {
      if (options.jobs !== false) jobs = installJobs(runtime, { killOnExit: false });
      workflows = installWorkflows(runtime, services);
      const [jobLayer, workflowLayer] = [jobs, workflows];
      return () => {
        workflowLayer.dispose();
        jobLayer?.dispose();
      };
    },
  });
  const service = workflows?.service;
  assert.ok(service instanceof WorkerWorkflowService);
  const waiting: Array<(record: JobRecord) => void> = [];
  fixture.runtime.root.on(jobSettled, (record) => {
    for (const resolve of waiting.splice(0)) resolve(record);
  });
  const nextSettlement = () =>
    new Promise<JobRecord>((resolve) => {
      waiting.push(resolve);
    });
  const read = (id: string) => {
    assert.ok(jobs);
    return jobs.service.read(id, fixture.rootId).output;
  };
  return { fixture, gate, service, nextSettlement, read };
}

test('a background workflow is a job: progress to read, the rendered result when it settles', async () => {
  const { fixture, gate, service, nextSettlement, read } = setup();
  try {
    const foregroundTurn = fixture.root.agent.prompt('shout now: beta');
    await gate.arrived('beta');
    gate.open('beta');
    const foreground = (await foregroundTurn).text;
    assert.equal(
      foreground,
      'Workflow "shouter" completed with 1 agents.\nValue:\n{\n  "word": "beta!"\n}',
    );

    const settlement = nextSettlement();
    const started = await fixture.root.agent.prompt('shout in the background: alpha');
    assert.equal(
      started.text,
      'started: Started workflow "shouter" in the background as job workflow-1. Read its progress with job_output (job_id "workflow-1"), stop it with job_kill; its result arrives as a message when it ends.',
    );
    assert.equal(fixture.root.agent.status, 'idle');
    await gate.arrived('alpha');
    assert.equal(
      read('workflow-1'),
      'workflow shouter: Shouts a word (phases: shout; 8 slots)\nphase: shout\nlog: about to shout\nagent #1 started: alpha [shout]\n',
    );
    gate.open('alpha');
    const record = await settlement;
    assert.equal(record.id, 'workflow-1');
    assert.equal(record.status, 'completed');
    assert.equal(record.summary, foreground.replace('beta', 'alpha'));
    assert.equal(service.liveWorkers, 0, 'the run was disposed before the job settled');
    assert.match(
      read('workflow-1'),
      /^agent #1 completed: alpha \(\d+ in \/ \d+ out\)\nworkflow completed: 1 agents started\n$/,
    );

    await fixture.model.waitForRequest(/^\[job workflow-1 completed\]/);
    await fixture.root.agent.whenIdle();
    const notices = eventsOf(fixture.root.log.events, 'user/message').filter(
      (message) => message.source === 'job',
    );
    assert.equal(notices.length, 1);
    assert.match(
      notices[0]?.text ?? '',
      /^\[job workflow-1 completed\] shouter\nWorkflow "shouter" completed/,
    );
  } finally {
    await fixture.close();
  }
});

test('job_kill cancels a background workflow and the job ends killed', async () => {
  const { fixture, gate, nextSettlement } = setup();
  try {
    const settlement = nextSettlement();
    await fixture.root.agent.prompt('shout in the background: gamma');
    await gate.arrived('gamma');
    await fixture.root.agent.prompt('kill workflow-1');
    const record = await settlement;
    assert.equal(record.status, 'killed');
    assert.match(record.summary ?? '', /^Workflow "shouter" cancelled with 1 agents\./);
    const childEnd = await fixture.waitForEnd((event) => event.description === 'gamma');
    assert.equal(childEnd.stopReason, 'cancelled');
  } finally {
    await fixture.close();
  }
});

test('without a job runner in scope a background workflow is a clear error and nothing starts', async () => {
  const { fixture } = setup({ jobs: false });
  try {
    await fixture.root.agent.prompt('shout in the background: delta');
    const [result] = eventsOf(fixture.root.log.events, 'tool/result');
    assert.equal(result?.isError, true);
    assert.match(result?.content ?? '', /no background job runner is installed/);
    assert.equal(fixture.starts.length, 0);
  } finally {
    await fixture.close();
  }
});
