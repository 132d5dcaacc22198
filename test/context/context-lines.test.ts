/**
 * What a person reads about the context, headless on stderr: a warning as it fills, what a
 * compaction pruned with the sizes before and after, and a compaction that was skipped.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { plainRenderer } from '../../src/cli/render-plain.js';
import type { SessionEvent } from '../../src/core/session-events.js';

function rendered(events: Array<Pick<SessionEvent, 'type' | 'data'>>): string {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const renderer = plainRenderer(stdout, stderr);
  for (const [seq, event] of events.entries()) {
    renderer.render({ ...event, seq: seq + 1, time: 0 } as SessionEvent);
  }
  return String(stderr.read() ?? '');
}

test('a headless run says on stderr when the context fills, what a compaction pruned, and a skipped one', () => {
  const text = rendered([
    { type: 'context/warning', data: { share: 0.72 } },
    {
      type: 'context/compact',
      data: {
        through: 80,
        summary: '',
        pruned: ['call_1', 'call_2', 'call_3'],
        before: 62_400,
        after: 9_100,
        trigger: 'auto',
      },
    },
    {
      type: 'context/compact',
      data: {
        through: 90,
        summary: 'the plan so far',
        pruned: ['call_9'],
        before: 15_000,
        after: 4_000,
        trigger: 'overflow',
      },
    },
    { type: 'context/compact-skipped', data: { before: 12_000, wouldBe: 12_300 } },
  ]);
  assert.equal(
    text,
    [
      'context 72% full: older tool results will be pruned soon (recall brings any back)',
      'compacted: 3 tool results pruned (62k → 9.1k tokens)',
      'compacted after the provider said the context was full: 1 tool result pruned, earlier turns summarized (15k → 4k tokens)',
      'compaction skipped: it would not make the request smaller (12k → 12k tokens)',
      '',
    ].join('\n'),
  );
});
