/**
 * ACP's stable `usage_update` carries how full the context is: each `context/usage` event streams
 * as one (used = the request's tokens, size = the window), and a replayed session sends only the
 * latest, after its history.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveUpdateOf, replayUpdatesOf, updateView } from '../../src/acp/session-updates.js';
import type { SessionEvent } from '../../src/core/session-events.js';

const usage = (seq: number, tokens: number): SessionEvent =>
  ({
    type: 'context/usage',
    seq,
    time: 0,
    data: { tokens, window: 16_000, share: tokens / 16_000 },
  }) as SessionEvent;

test('a context/usage event streams as a usage_update with the used tokens and the window', () => {
  assert.deepEqual(liveUpdateOf(usage(1, 4000), updateView('/work')), {
    sessionUpdate: 'usage_update',
    used: 4000,
    size: 16_000,
  });
});

test('a replayed session sends one usage_update, the latest, after its history', () => {
  const events = [
    usage(1, 1000),
    { type: 'user/message', seq: 2, time: 0, data: { text: 'hello' } } as SessionEvent,
    usage(3, 9000),
  ];
  const updates = replayUpdatesOf(events, '/work');
  assert.deepEqual(
    updates.map((update) => update.sessionUpdate),
    ['user_message_chunk', 'usage_update'],
  );
  assert.deepEqual(updates.at(-1), { sessionUpdate: 'usage_update', used: 9000, size: 16_000 });
});
