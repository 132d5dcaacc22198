/**
 * The schedules block restated after a compaction: each pending schedule's id, kind, next time
 * (absolute and from now) and prompt on one line, long prompts cut; nothing when none is pending.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Schedule } from '../../src/interaction/schedule-contract.js';
import { schedulesStandingText } from '../../src/interaction/schedule-text.js';

const now = Date.parse('2026-12-01T09:00:00Z');

test('the schedules block gives each pending schedule its id, kind, next time and prompt', () => {
  const schedules: Schedule[] = [
    {
      id: 'schedule-2',
      prompt: 'check\nthe build',
      kind: 'once',
      dueAt: now + 300_000,
      createdAt: now,
    },
    {
      id: 'schedule-1',
      prompt: 'look at the queue',
      kind: 'every',
      everySeconds: 3600,
      dueAt: now + 3_600_000,
      createdAt: now,
    },
  ];
  assert.equal(
    schedulesStandingText(schedules, now),
    [
      '# Schedules',
      '- schedule-2 (once), next at 2026-12-01T09:05:00.000Z (in 5 min): check the build',
      '- schedule-1 (every 3600s), next at 2026-12-01T10:00:00.000Z (in 1 h): look at the queue',
    ].join('\n'),
  );
});

test('the schedules block cuts a long prompt and is empty without pending schedules', () => {
  const long: Schedule = {
    id: 'schedule-1',
    prompt: 'x'.repeat(500),
    kind: 'once',
    dueAt: now + 40_000,
    createdAt: now,
  };
  const line = schedulesStandingText([long], now).split('\n')[1] ?? '';
  assert.ok(line.endsWith(`: ${'x'.repeat(199)}…`), line);
  assert.equal(schedulesStandingText([], now), '');
});
