/**
 * Loom's compaction events as ACP `compaction_update` upserts, for a client that advertised
 * `session.compaction`: a summarization is `in_progress` then `completed` with its summary under
 * the same id, a skipped one `failed` with its reason or `cancelled` when it would not have been
 * smaller, a pruning is one `completed` upsert with its line as summary, a skipped pruning
 * nothing; a replayed session sends each compaction once, final, where it began (one that never
 * ended as `cancelled`). Every update is valid by the SDK's JSON Schema. Without the capability
 * none of these events has an update.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { advertisesCompaction } from '../../src/acp/compaction-updates.js';
import { liveUpdateOf, replayUpdatesOf, updateView } from '../../src/acp/session-updates.js';
import { contextCompactLine, contextSkippedLine } from '../../src/context/context-lines.js';
import type {
  ContextCompactEvent,
  ContextCompactSkippedEvent,
  ContextSummarizingEvent,
} from '../../src/context/contract.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { acpSchemaErrors } from '../helpers/acp-schema.js';

const event = (seq: number, type: string, data: unknown) =>
  ({ type, seq, time: 0, data }) as SessionEvent;
const summarizing = (seq: number, data: ContextSummarizingEvent) =>
  event(seq, 'context/summarizing', data);
const compact = (seq: number, data: ContextCompactEvent) => event(seq, 'context/compact', data);
const skipped = (seq: number, data: ContextCompactSkippedEvent) =>
  event(seq, 'context/compact-skipped', data);

const SUMMARY: ContextCompactEvent = {
  through: 40,
  summary: 'The user asked for a refactor; files a.ts and b.ts were changed.',
  pruned: [],
  before: 90_000,
  after: 12_000,
  trigger: 'auto',
  summarized: { id: 'span:1-40', from: 1, turns: 2, steps: 9, toolResults: 8 },
};
const PRUNING: ContextCompactEvent = {
  through: 20,
  summary: '',
  pruned: ['call_1', 'call_2'],
  before: 14_000,
  after: 7000,
  trigger: 'manual',
};

/** The updates of `events` streamed live to a client that takes compactions. */
function live(events: readonly SessionEvent[]) {
  const view = updateView('/work', { compactions: true });
  const updates = events.map((each) => liveUpdateOf(each, view));
  for (const update of updates) if (update) assert.deepEqual(acpSchemaErrors(update), []);
  return updates;
}

test('the capability is session.compaction, present and not null', () => {
  assert.equal(advertisesCompaction({ session: { compaction: {} } }), true);
  assert.equal(advertisesCompaction({ session: { compaction: null } }), false);
  assert.equal(advertisesCompaction({ session: {} }), false);
  assert.equal(advertisesCompaction({}), false);
  assert.equal(advertisesCompaction(undefined), false);
});

test('a summarization is in_progress, then completed with its summary under the same id', () => {
  const [started, done] = live([
    summarizing(41, { through: 40, before: 90_000, trigger: 'auto' }),
    compact(43, SUMMARY),
  ]);
  assert.deepEqual(started, {
    sessionUpdate: 'compaction_update',
    compactionId: 'compaction-41',
    status: 'in_progress',
    _meta: { loom: { trigger: 'auto', through: 40, before: 90_000 } },
  });
  assert.deepEqual(done, {
    sessionUpdate: 'compaction_update',
    compactionId: 'compaction-41',
    status: 'completed',
    summary: [{ type: 'text', text: SUMMARY.summary }],
    _meta: {
      loom: {
        trigger: 'auto',
        through: 40,
        before: 90_000,
        after: 12_000,
        pruned: 0,
        summarized: SUMMARY.summarized,
      },
    },
  });
});

test('a skipped summarization fails with its reason, or is cancelled when it would not be smaller', () => {
  const start = summarizing(41, { through: 40, before: 90_000, trigger: 'overflow' });
  const failed = live([
    start,
    skipped(42, { before: 90_000, wouldBe: 90_000, reason: 'HTTP 500' }),
  ]);
  assert.deepEqual(failed[1], {
    sessionUpdate: 'compaction_update',
    compactionId: 'compaction-41',
    status: 'failed',
    error: 'HTTP 500',
    _meta: { loom: { trigger: 'overflow', through: 40, before: 90_000, wouldBe: 90_000 } },
  });
  const larger = { before: 90_000, wouldBe: 95_000 };
  const cancelled = live([start, skipped(42, larger)]);
  assert.equal(
    cancelled[1]?.sessionUpdate === 'compaction_update' && cancelled[1].status,
    'cancelled',
  );
  assert.equal(
    cancelled[1]?.sessionUpdate === 'compaction_update' && cancelled[1].error,
    contextSkippedLine(larger),
  );
});

test('a pruning is one completed upsert with its line as summary; a skipped pruning is nothing', () => {
  const [pruned, nothing] = live([
    compact(21, PRUNING),
    skipped(22, { before: 7000, wouldBe: 7000 }),
  ]);
  assert.deepEqual(pruned, {
    sessionUpdate: 'compaction_update',
    compactionId: 'compaction-21',
    status: 'completed',
    summary: [{ type: 'text', text: contextCompactLine(PRUNING) }],
    _meta: { loom: { trigger: 'manual', through: 20, before: 14_000, after: 7000, pruned: 2 } },
  });
  assert.equal(nothing, undefined);
});

test('a pruning while a summarization runs is its own compaction and leaves the summarization open', () => {
  const [, pruned, done] = live([
    summarizing(41, { through: 40, before: 90_000, trigger: 'auto' }),
    compact(45, { ...PRUNING, through: 44 }),
    compact(47, SUMMARY),
  ]);
  assert.equal(
    pruned?.sessionUpdate === 'compaction_update' && pruned.compactionId,
    'compaction-45',
  );
  assert.equal(done?.sessionUpdate === 'compaction_update' && done.compactionId, 'compaction-41');
});

test('without the capability no compaction event has an update, live or replayed', () => {
  const events = [
    summarizing(41, { through: 40, before: 90_000, trigger: 'auto' }),
    compact(43, SUMMARY),
    compact(44, PRUNING),
    summarizing(45, { through: 44, before: 90_000, trigger: 'auto' }),
    skipped(46, { before: 90_000, wouldBe: 95_000 }),
  ];
  const view = updateView('/work');
  for (const each of events) assert.equal(liveUpdateOf(each, view), undefined);
  assert.deepEqual(replayUpdatesOf(events, '/work'), []);
});

test('a replay sends each compaction once, final, where it began; an unfinished one is cancelled', () => {
  const events = [
    event(1, 'user/message', { text: 'refactor it' }),
    summarizing(41, { through: 40, before: 90_000, trigger: 'auto' }),
    event(42, 'assistant/message', { text: 'still here', usage: { input: 0, output: 0 } }),
    compact(43, SUMMARY),
    compact(50, PRUNING),
    summarizing(60, { through: 59, before: 80_000, trigger: 'manual' }),
  ];
  const updates = replayUpdatesOf(events, '/work', { compactions: true });
  for (const update of updates) assert.deepEqual(acpSchemaErrors(update), []);
  assert.deepEqual(
    updates.map((update) =>
      update.sessionUpdate === 'compaction_update'
        ? `${update.compactionId} ${update.status}`
        : update.sessionUpdate,
    ),
    [
      'user_message_chunk',
      'compaction-41 completed',
      'agent_message_chunk',
      'compaction-50 completed',
      'compaction-60 cancelled',
    ],
  );
  assert.deepEqual(updates[1], live([events[1] as SessionEvent, events[3] as SessionEvent])[1]);
  assert.deepEqual(updates[4], {
    sessionUpdate: 'compaction_update',
    compactionId: 'compaction-60',
    status: 'cancelled',
    error: 'the summarization did not finish',
    _meta: { loom: { trigger: 'manual', through: 59, before: 80_000 } },
  });
});

test('the schema check rejects a compaction_update without its status', () => {
  assert.notDeepEqual(
    acpSchemaErrors({ sessionUpdate: 'compaction_update', compactionId: 'compaction-1' }),
    [],
  );
});
