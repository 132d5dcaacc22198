import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEvent, type SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { deferred } from '../core/agent-fixture.js';
import { fakeJob, jobsRuntime } from './job-fixture.js';

const model = {
  rules: [
    { when: '^\\[job ', reply: 'noted' },
    { when: '^hello$', reply: 'hi' },
    { when: '^work$', steps: [{ tools: [{ name: 'hold' }] }, { reply: 'worked' }] },
  ],
};

const isType = (type: string) => (event: SessionEvent) => event.type === type;
const userMessages = (events: readonly SessionEvent[]) =>
  events
    .filter((event): event is SessionEvent<'user/message'> => isEvent(event, 'user/message'))
    .map((event) => event.data);

test('notices wake an idle owner at most 3 times in a row; human input resets the count', async () => {
  const fixture = jobsRuntime(model);
  const { root, rootId, layer } = fixture;
  try {
    const finishJob = async () => {
      const job = fakeJob({ owner: rootId, label: 'make' });
      const { id } = layer.service.start(job.work);
      job.finish();
      await fixture.waitForEvent(
        root,
        (event) => event.type === 'job/end' && (event.data as { jobId: string }).jobId === id,
      );
    };
    for (let wake = 1; wake <= 3; wake++) {
      await finishJob();
      await fixture.waitForEvent(root, isType('turn/end'), wake);
      await root.agent.whenIdle();
    }
    await finishJob();
    assert.equal(root.agent.status, 'idle', 'the 4th notice does not wake the agent');
    assert.deepEqual(root.agent.inbox, { followup: 0, steer: 0, inject: 1 });
    assert.equal(root.log.events.filter(isType('turn/end')).length, 3);

    await root.agent.prompt('hello');
    await finishJob();
    await fixture.waitForEvent(root, isType('turn/end'), 5);
    await root.agent.whenIdle();

    const messages = userMessages(root.log.events).map(
      (data) => `${data.delivery}:${data.source ?? 'human'}:${data.text.split('\n')[0]}`,
    );
    assert.deepEqual(messages, [
      'followup:job:[job fake-1 completed] make',
      'followup:job:[job fake-2 completed] make',
      'followup:job:[job fake-3 completed] make',
      'inject:job:[job fake-4 completed] make',
      'followup:human:hello',
      'followup:job:[job fake-5 completed] make',
    ]);
  } finally {
    await fixture.close();
  }
});

test('a running owner gets the notice at its next step', async () => {
  const arrived = deferred();
  const release = deferred();
  const hold: ToolDefinition = {
    name: 'hold',
    description: 'Waits for the test.',
    parameters: { type: 'object', properties: {} },
    async execute() {
      arrived.resolve();
      await release.promise;
      return 'released';
    },
  };
  const fixture = jobsRuntime(model, { tools: [hold] });
  const { root, rootId, layer } = fixture;
  try {
    const turn = root.agent.prompt('work');
    await arrived.promise;
    const job = fakeJob({ owner: rootId, label: 'make' });
    layer.service.start(job.work);
    job.finish();
    await fixture.waitForEvent(root, isType('job/end'));
    assert.deepEqual(root.agent.inbox, { followup: 0, steer: 1, inject: 0 });
    release.resolve();
    const outcome = await turn;
    assert.equal(outcome.text, 'noted');
    const steered = userMessages(root.log.events).find((data) => data.delivery === 'steer');
    assert.equal(steered?.source, 'job');
    assert.equal(steered?.text, '[job fake-1 completed] make\nexit 0');
    assert.equal(root.log.events.filter(isType('turn/start')).length, 1, 'no extra turn');
  } finally {
    await fixture.close();
  }
});

test('job/start and job/end are logged in the owner session, also when it closes', async () => {
  const fixture = jobsRuntime(model, { maxConsecutiveWakes: 0 });
  const { root, rootId, layer, runtime } = fixture;
  try {
    const other = runtime.start();
    const finished = fakeJob({ owner: rootId, kind: 'bash', label: 'npm test' });
    const abandoned = fakeJob({ owner: rootId, kind: 'bash', label: 'npm run watch' });
    layer.service.start(finished.work);
    layer.service.start(abandoned.work);
    finished.finish({ summary: 'exit 0' });
    await fixture.waitForEvent(root, isType('job/end'));
    root.close();
    assert.deepEqual(abandoned.cancels, [`its owner ${rootId} has gone`]);
    const events = loadSessionFile(runtime.store.pathOf(rootId)).events;
    const jobEvents = events
      .filter((event) => event.type.startsWith('job/'))
      .map((event) => [event.type, event.data]);
    assert.deepEqual(jobEvents, [
      ['job/start', { jobId: 'bash-1', kind: 'bash', label: 'npm test' }],
      ['job/start', { jobId: 'bash-2', kind: 'bash', label: 'npm run watch' }],
      ['job/end', { jobId: 'bash-1', status: 'completed', summary: 'exit 0' }],
      [
        'job/end',
        {
          jobId: 'bash-2',
          status: 'killed',
          summary: 'stopped without waiting for it to end',
          reason: `its owner ${rootId} has gone`,
        },
      ],
    ]);
    assert.equal(other.log.events.filter((event) => event.type.startsWith('job/')).length, 0);
    assert.equal(
      events.filter(isType('turn/start')).length,
      0,
      'maxConsecutiveWakes 0 never wakes',
    );
  } finally {
    await fixture.close();
  }
});
