import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEvent } from '../../src/core/session-events.js';
import { ScheduleError } from '../../src/interaction/schedule-contract.js';
import { schedulesOf } from '../../src/interaction/schedule-install.js';
import type { ScheduleService } from '../../src/interaction/schedule-service.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { fakeClock, fireEvents, scheduleMessages, scheduleRuntime } from './schedule-fixture.js';

const MINUTE = 60_000;

const script: ScriptedModelFile = {
  rules: [
    {
      when: '^remind me once',
      steps: [
        {
          tools: [
            {
              name: 'schedule_create',
              arguments: { prompt: 'check the build', after_seconds: 60 },
            },
          ],
        },
        { reply: 'set: {{lastToolResult}}' },
      ],
    },
    {
      when: '^remind me often',
      steps: [
        { tools: [{ name: 'schedule_create', arguments: { prompt: 'poll', every_seconds: 60 } }] },
        { reply: 'set' },
      ],
    },
    {
      when: '^forget it',
      steps: [
        { tools: [{ name: 'schedule_delete', arguments: { id: 'schedule-1' } }] },
        { reply: 'deleted: {{lastToolResult}}' },
      ],
    },
    {
      when: '^what is scheduled',
      steps: [
        { tools: [{ name: 'schedule_list', arguments: {} }] },
        { reply: '{{lastToolResult}}' },
      ],
    },
    {
      when: '^too often',
      steps: [
        { tools: [{ name: 'schedule_create', arguments: { prompt: 'spin', every_seconds: 30 } }] },
        { reply: 'refused: {{lastToolResult}}' },
      ],
    },
    { when: '^\\[schedule (schedule-\\d+)', reply: 'woken by {{1}}' },
  ],
  default: { reply: 'ok' },
};

function serviceOf(handle: Parameters<typeof schedulesOf>[0]): ScheduleService {
  const service = schedulesOf(handle);
  assert.ok(service, 'the root agent has a schedule service');
  return service;
}

test('a due one-shot schedule wakes the idle agent with a follow-up from source schedule', async () => {
  const clock = fakeClock();
  const { runtime } = scheduleRuntime(script, clock);
  const handle = runtime.start();
  const set = await handle.agent.prompt('remind me once');
  assert.equal(set.reason, 'completed');
  assert.match(set.text, /"id":"schedule-1"/);
  assert.equal(handle.agent.status, 'idle');

  clock.advance(MINUTE - 1);
  assert.equal(handle.agent.status, 'idle', 'not due yet');
  assert.deepEqual(scheduleMessages(handle.log.events), []);

  const turnEnds = handle.log.events.length;
  clock.advance(1);
  assert.equal(handle.agent.status, 'running', 'the due schedule woke the agent');
  await handle.agent.whenIdle();
  assert.deepEqual(scheduleMessages(handle.log.events), [
    'followup: [schedule schedule-1] check the build',
  ]);
  const answer = handle.log.events
    .slice(turnEnds)
    .find((event) => isEvent(event, 'assistant/message'));
  assert.ok(answer && isEvent(answer, 'assistant/message'));
  assert.equal(answer.data.text, 'woken by schedule-1');
  assert.deepEqual(fireEvents(handle.log.events), [
    { scheduleId: 'schedule-1', dueAt: Date.parse('2026-12-01T09:01:00Z') },
  ]);
  assert.deepEqual(serviceOf(handle).schedules, [], 'a one-shot is done once fired');
  assert.equal(clock.pending, 0, 'no timer is left');
  handle.close();
});

test('a recurring schedule fires again and again, re-armed from its fire time', async () => {
  const clock = fakeClock();
  const start = clock.now();
  const { runtime } = scheduleRuntime(script, clock);
  const handle = runtime.start();
  await handle.agent.prompt('remind me often');
  for (let round = 1; round <= 3; round++) {
    clock.advance(MINUTE);
    assert.equal(handle.agent.status, 'running');
    await handle.agent.whenIdle();
  }
  assert.deepEqual(scheduleMessages(handle.log.events), [
    'followup: [schedule schedule-1, every 60s] poll',
    'followup: [schedule schedule-1, every 60s] poll',
    'followup: [schedule schedule-1, every 60s] poll',
  ]);
  assert.deepEqual(
    fireEvents(handle.log.events).map((fire) => [
      fire.dueAt - start,
      (fire.nextDueAt ?? 0) - start,
    ]),
    [
      [MINUTE, 2 * MINUTE],
      [2 * MINUTE, 3 * MINUTE],
      [3 * MINUTE, 4 * MINUTE],
    ],
  );
  const [pending] = serviceOf(handle).schedules;
  assert.equal(pending?.dueAt, start + 4 * MINUTE);
  handle.close();
});

test('schedule_delete removes a pending schedule: it never fires and no timer is left', async () => {
  const clock = fakeClock();
  const { runtime } = scheduleRuntime(script, clock);
  const handle = runtime.start();
  await handle.agent.prompt('remind me once');
  assert.equal(clock.pending, 1);
  const deleted = await handle.agent.prompt('forget it');
  assert.match(deleted.text, /^deleted: .*"id":"schedule-1"/);
  assert.equal(clock.pending, 0);
  clock.advance(10 * MINUTE);
  assert.equal(handle.agent.status, 'idle');
  assert.deepEqual(scheduleMessages(handle.log.events), []);
  assert.deepEqual(fireEvents(handle.log.events), []);
  assert.ok(handle.log.events.some((event) => isEvent(event, 'schedule/delete')));
  const again = await handle.agent.prompt('forget it');
  assert.match(again.text, /no pending schedule "schedule-1"; pending: none/);
  handle.close();
});

test('a reopened session lists its schedules and keeps numbering them', async () => {
  const clock = fakeClock();
  const { runtime } = scheduleRuntime(script, clock);
  const first = runtime.start();
  const sessionId = first.log.header.sessionId;
  await first.agent.prompt('remind me once');
  await first.agent.prompt('remind me often');
  const before = serviceOf(first).schedules;
  first.close();
  await first.agent.whenIdle();
  assert.equal(clock.pending, 0, 'closing the session stops its timer');

  clock.advance(30_000);
  const second = runtime.resume(sessionId);
  assert.deepEqual(serviceOf(second).schedules, before);
  const listed = await second.agent.prompt('what is scheduled');
  const { schedules } = JSON.parse(listed.text) as { schedules: Array<Record<string, unknown>> };
  assert.deepEqual(
    schedules.map((entry) => [entry.id, entry.kind, entry.due_in_seconds, entry.every_seconds]),
    [
      ['schedule-1', 'once', 30, undefined],
      ['schedule-2', 'every', 30, 60],
    ],
  );
  assert.equal(serviceOf(second).create({ prompt: 'third', afterSeconds: 5 }).id, 'schedule-3');
  clock.advance(30_000);
  await second.agent.whenIdle();
  assert.deepEqual(scheduleMessages(second.log.events), [
    'followup: [schedule schedule-3] third',
    'followup: [schedule schedule-1] check the build',
    'followup: [schedule schedule-2, every 60s] poll',
  ]);
  second.close();
});

test('a one-shot missed while no process held the session is reported once, never run', async () => {
  const clock = fakeClock();
  const { runtime } = scheduleRuntime(script, clock);
  const first = runtime.start();
  const sessionId = first.log.header.sessionId;
  await first.agent.prompt('remind me once');
  first.close();
  await first.agent.whenIdle();
  clock.advance(5 * MINUTE);

  const second = runtime.resume(sessionId);
  const service = serviceOf(second);
  assert.deepEqual(
    service.missedAtOpen.map((schedule) => schedule.id),
    ['schedule-1'],
  );
  assert.deepEqual(fireEvents(second.log.events), [
    { scheduleId: 'schedule-1', dueAt: Date.parse('2026-12-01T09:01:00Z'), missed: true },
  ]);
  assert.equal(second.agent.status, 'idle', 'a missed schedule does not run late');
  assert.deepEqual(second.agent.inbox, { followup: 0, steer: 0, inject: 1 });
  assert.deepEqual(service.schedules, []);
  await second.agent.prompt('hello');
  const [note, ...rest] = scheduleMessages(second.log.events);
  assert.deepEqual(rest, []);
  assert.match(
    note ?? '',
    /^inject: missed: schedule-1 was due at 2026-12-01T09:01:00\.000Z while no process held this session, so it did not run\. Its prompt: check the build/,
  );
  second.close();
  await second.agent.whenIdle();

  const third = runtime.resume(sessionId);
  assert.deepEqual(serviceOf(third).missedAtOpen, []);
  assert.deepEqual(third.agent.inbox, { followup: 0, steer: 0, inject: 0 });
  assert.equal(fireEvents(third.log.events).length, 1, 'reported once, not again');
  third.close();
});

test('a recurring schedule missed while closed is reported and re-armed after now', async () => {
  const clock = fakeClock();
  const start = clock.now();
  const { runtime } = scheduleRuntime(script, clock);
  const first = runtime.start();
  await first.agent.prompt('remind me often');
  first.close();
  await first.agent.whenIdle();
  clock.advance(150_000);
  const second = runtime.resume(first.log.header.sessionId);
  const [missed] = serviceOf(second).missedAtOpen;
  assert.equal(missed?.nextDueAt, start + 3 * MINUTE);
  assert.equal(serviceOf(second).schedules[0]?.dueAt, start + 3 * MINUTE);
  assert.equal(second.agent.status, 'idle');
  clock.advance(30_000);
  assert.equal(second.agent.status, 'running');
  await second.agent.whenIdle();
  const [note, woken, ...rest] = scheduleMessages(second.log.events);
  assert.match(
    note ?? '',
    /^inject: missed: schedule-1 was due at 2026-12-01T09:01:00\.000Z .* it recurs, next at 2026-12-01T09:03:00\.000Z\. Its prompt: poll/,
  );
  assert.equal(woken, 'followup: [schedule schedule-1, every 60s] poll');
  assert.deepEqual(rest, []);
  second.close();
});

test('schedule_create refuses bad requests naming what is wrong', async () => {
  const clock = fakeClock();
  const { runtime } = scheduleRuntime(script, clock);
  const handle = runtime.start();
  const service = serviceOf(handle);
  const refusals: Array<[Parameters<ScheduleService['create']>[0], RegExp]> = [
    [{ prompt: 'x' }, /^give exactly one of after_seconds, at or every_seconds$/],
    [
      { prompt: 'x', afterSeconds: 5, everySeconds: 60 },
      /exactly one .*\(got after_seconds and every_seconds\)/,
    ],
    [{ prompt: '  ', afterSeconds: 5 }, /non-empty prompt/],
    [{ prompt: 'x', afterSeconds: 0 }, /after_seconds must be a whole number from 1 to 31536000/],
    [{ prompt: 'x', afterSeconds: 1.5 }, /after_seconds must be a whole number/],
    [{ prompt: 'x', afterSeconds: 400 * 86_400 }, /a year\), got 34560000/],
    [{ prompt: 'x', everySeconds: 59 }, /every_seconds must be a whole number from 60 to 604800/],
    [{ prompt: 'x', everySeconds: 8 * 86_400 }, /every_seconds .* \(a week\), got 691200/],
    [{ prompt: 'x', at: '2026-12-01T08:00:00Z' }, /at 2026-12-01T08:00:00Z is not in the future/],
    [
      { prompt: 'x', at: '2026-12-01T10:00:00' },
      /at must be an ISO 8601 date and time with its zone/,
    ],
    [{ prompt: 'x', at: 'tomorrow' }, /got "tomorrow"/],
    [{ prompt: 'x', at: '2028-12-01T10:00:00Z' }, /more than a year ahead/],
  ];
  for (const [request, message] of refusals) {
    assert.throws(
      () => service.create(request),
      (error: unknown) =>
        error instanceof ScheduleError &&
        error.code === 'SCHEDULE_INVALID' &&
        message.test(error.message),
      JSON.stringify(request),
    );
  }
  assert.throws(
    () => service.delete('schedule-9'),
    (error: unknown) => error instanceof ScheduleError && error.code === 'SCHEDULE_NOT_FOUND',
  );
  const at = service.create({ prompt: 'at ten', at: '2026-12-01T11:00:00+01:00' });
  assert.equal(at.dueAt, Date.parse('2026-12-01T10:00:00Z'));
  assert.equal(at.id, 'schedule-1', 'refused requests take no id');

  const refused = await handle.agent.prompt('too often');
  assert.match(refused.text, /^refused: .*every_seconds must be a whole number from 60/);
  assert.equal(serviceOf(handle).schedules.length, 1);
  handle.close();
});

test('children get no schedules: only root agents hold the service and the tools', () => {
  const clock = fakeClock();
  const { runtime } = scheduleRuntime(script, clock);
  const root = runtime.start();
  const child = runtime.start({ parentSession: root.log.header.sessionId, delegationDepth: 1 });
  assert.ok(schedulesOf(root));
  assert.equal(schedulesOf(child), undefined);
  assert.equal(child.tools.lookup('schedule_create'), undefined);
  assert.ok(root.tools.lookup('schedule_create'));
  child.close();
  root.close();
});
