/**
 * The running turn's activity folded from session events, described at injected times: what the
 * status line says, the elapsed time without approval waits, the tokens so far, the slow-model
 * notice after 30 s of silence. Also the shared ticker: one timer for every listener.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent, SessionEventType } from '../../src/core/session-events.js';
import {
  ActivityFold,
  activityLine,
  describeActivity,
  type TurnActivity,
} from '../../src/tui/activity-state.js';
import { Ticker } from '../../src/tui/ticker.js';

let seq = 0;
function event<Type extends SessionEventType>(
  type: Type,
  time: number,
  data: Partial<SessionEvent<Type>['data']> = {},
): SessionEvent {
  seq += 1;
  return { type, seq, time, data: { turnId: 't1', step: 1, ...data } as never };
}

function running(fold: ActivityFold): TurnActivity {
  const activity = fold.current;
  assert.ok(activity, 'a turn runs');
  return activity;
}

test('a model request silent for 30 s says "waiting for the model (30 s)", and a token ends the notice', () => {
  const fold = new ActivityFold();
  fold.apply(event('turn/start', 1000));
  fold.apply(event('step/start', 1000));
  assert.equal(describeActivity(running(fold), 30_999).doing, 'thinking');
  assert.equal(describeActivity(running(fold), 31_000).doing, 'waiting for the model (30 s)');
  assert.equal(describeActivity(running(fold), 46_500).doing, 'waiting for the model (45 s)');
  fold.apply(event('assistant/chunk', 47_000, { kind: 'text', text: 'abcdefgh' }));
  const writing = describeActivity(running(fold), 48_000);
  assert.equal(writing.doing, 'writing');
  assert.deepEqual(writing.tokens, { input: 0, output: 2 });
});

test('elapsed time stops while the person is asked for an approval and goes on after the answer', () => {
  const fold = new ActivityFold();
  fold.apply(event('turn/start', 0));
  fold.apply(event('tool/call', 2000, { callId: 'c1', name: 'bash' }));
  fold.waiting('approval', 3000);
  assert.equal(describeActivity(running(fold), 3000).elapsedMs, 3000);
  const asked = describeActivity(running(fold), 63_000);
  assert.equal(asked.elapsedMs, 3000);
  assert.equal(asked.doing, 'waiting for your approval');
  fold.waiting(undefined, 63_000);
  const answered = describeActivity(running(fold), 65_000);
  assert.equal(answered.elapsedMs, 5000);
  assert.equal(answered.doing, 'running bash');
});

test('tokens add up over the turn, tools and agents are named, and the turn end clears the activity', () => {
  const fold = new ActivityFold();
  fold.apply(event('turn/start', 0));
  fold.apply(
    event('assistant/message', 1000, { usage: { input: 1200, output: 40 }, toolCalls: [] }),
  );
  fold.apply(event('tool/call', 1000, { callId: 'c1', name: 'subagent' }));
  fold.apply(event('tool/call', 1000, { callId: 'c2', name: 'glob' }));
  fold.apply(event('tool/call', 1000, { callId: 'c3', name: 'bash', parentCallId: 'c2' }));
  fold.agents(2);
  const described = describeActivity(running(fold), 12_400);
  assert.equal(described.doing, 'running subagent and 1 more · 2 agents running');
  assert.equal(
    activityLine(described, 3),
    '⠸ 12s · 1.2k↑ 40↓ · running subagent and 1 more · 2 agents running · esc to interrupt',
  );
  fold.apply(event('tool/result', 2000, { callId: 'c1', name: 'subagent' }));
  fold.apply(event('tool/result', 2000, { callId: 'c2', name: 'glob' }));
  fold.agents(0);
  assert.equal(describeActivity(running(fold), 3000).doing, 'thinking');
  fold.apply(event('turn/end', 4000));
  assert.equal(fold.current, undefined);
});

test('the shared ticker runs one timer for all its listeners, only while any listens', () => {
  const started: Array<() => void> = [];
  let stopped = 0;
  const ticker = new Ticker(100, {
    start(tick) {
      started.push(tick);
      return () => {
        stopped += 1;
      };
    },
  });
  const seen: string[] = [];
  const undoFirst = ticker.subscribe((count) => seen.push(`a${count}`));
  const undoSecond = ticker.subscribe((count) => seen.push(`b${count}`));
  assert.equal(started.length, 1);
  started[0]?.();
  assert.deepEqual(seen, ['a1', 'b1']);
  undoFirst();
  assert.equal(stopped, 0);
  undoSecond();
  assert.equal(stopped, 1);
});
