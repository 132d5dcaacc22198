/**
 * The goal block restated after a compaction: one short line with the id, phase (and why, when
 * it is not active), rounds and the objective verbatim; nothing for no goal or a complete one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Goal } from '../../src/goal/contract.js';
import { goalStandingText } from '../../src/goal/goal-text.js';

const goal: Goal = {
  id: 'goal-1',
  objective: 'Make `npm test` pass\nwithout skipping tests',
  phase: 'active',
  revision: 3,
  roundsStarted: 2,
  maxRounds: 20,
};

test('the goal block names the goal, its phase and rounds, and repeats the objective verbatim', () => {
  assert.equal(
    goalStandingText(goal),
    '# Goal\ngoal-1, active, 2 of 20 rounds started: Make `npm test` pass\nwithout skipping tests',
  );
  assert.equal(
    goalStandingText({ ...goal, phase: 'blocked', reason: 'the database is down' }),
    '# Goal\ngoal-1, blocked (the database is down), 2 of 20 rounds started: Make `npm test` pass\nwithout skipping tests',
  );
  assert.match(goalStandingText({ ...goal, phase: 'paused' }), /^# Goal\ngoal-1, paused, 2 of 20/);
});

test('the goal block is empty without a goal and for a complete one', () => {
  assert.equal(goalStandingText(null), '');
  assert.equal(goalStandingText({ ...goal, phase: 'complete', reason: 'tests pass' }), '');
});
