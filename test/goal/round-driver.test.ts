import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentMessageQueued } from '../../src/core/agent-hooks.js';
import type { AgentHandle } from '../../src/core/create-agent.js';
import {
  ROUND,
  roundsLogged,
  startGoalAgent,
  updateGoalStep,
  userMessages,
} from './goal-fixture.js';

test('an armed goal runs rounds until the model reports it complete', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      {
        when: '^\\[goal round 3 of',
        steps: [
          {
            tools: [
              {
                name: 'update_goal',
                arguments: {
                  goal_id: 'goal-1',
                  revision: 1,
                  action: 'complete',
                  reason: 'tests pass',
                },
              },
            ],
          },
          { reply: 'done' },
        ],
      },
      { when: ROUND, reply: 'worked on round {{1}}' },
    ],
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.arm();
  const settlement = await driver.whenSettled();
  assert.equal(settlement.kind, 'complete');
  assert.deepEqual(roundsLogged(handle.log.events), [1, 2, 3]);
  handle.close();
});

/** Answers `status?` and every round. */
const statusOrRound = {
  rules: [
    { when: '^status\\?', reply: 'all good so far' },
    { when: ROUND, reply: 'worked on round {{1}}' },
  ],
};

/** Runs `listener` each time the agent queues a goal round (before it takes it). */
function onRoundQueued(handle: AgentHandle, listener: () => void): () => void {
  return handle.context.on(agentMessageQueued, (event) => {
    if (event.agentId === handle.agent.id && event.source === 'goal') listener();
  });
}

test('a human message queued while a round is reserved runs first, is not a round, and does not use the cap', async () => {
  const { handle, service, driver } = startGoalAgent(statusOrRound);
  let goalQueued = 0;
  const stop = onRoundQueued(handle, () => {
    goalQueued += 1;
    // Round 2 has just been reserved and the agent has not taken it yet: the human speaks.
    if (goalQueued === 2) handle.agent.followup('status?');
  });
  service.create({ objective: 'make the tests pass', maxRounds: 3, by: 'human' });
  service.arm();
  const settlement = await driver.whenSettled();
  stop();
  assert.equal(settlement.kind, 'round-cap');
  assert.equal(goalQueued, 4, 'round 2 was reserved twice: once before the human turn, once after');
  const messages = userMessages(handle.log.events);
  assert.deepEqual(
    messages.map((message) =>
      message.data.source === 'goal' ? `round ${message.data.round}` : message.data.text,
    ),
    ['round 1', 'status?', 'round 2', 'round 3'],
  );
  const human = messages[1] as (typeof messages)[number];
  assert.equal(human.data.round, undefined);
  assert.equal(service.roundOf(human.data.turnId), undefined);
  assert.equal(service.goal?.roundsStarted, 3);
  assert.equal(service.history.filter((entry) => entry.kind === 'round').length, 3);
  handle.close();
});

test('a human steer sent while a round is reserved gets its own turn before the round', async () => {
  const { handle, service, driver } = startGoalAgent(statusOrRound);
  let goalQueued = 0;
  const stop = onRoundQueued(handle, () => {
    goalQueued += 1;
    // Just after the round is queued the agent is marked running but has not taken the round
    // yet (its drain is the next microtask): this is a real steer, not an idle follow-up.
    if (goalQueued === 1) {
      queueMicrotask(() => {
        assert.equal(handle.agent.status, 'running');
        handle.agent.steer('status?');
      });
    }
  });
  service.create({ objective: 'make the tests pass', maxRounds: 2, by: 'human' });
  service.arm();
  const settlement = await driver.whenSettled();
  stop();
  assert.equal(settlement.kind, 'round-cap');
  const messages = userMessages(handle.log.events);
  assert.deepEqual(
    messages.map((message) =>
      message.data.source === 'goal'
        ? `round ${message.data.round}`
        : `${message.data.text} (${message.data.delivery})`,
    ),
    ['status? (followup)', 'round 1', 'round 2'],
  );
  handle.close();
});

test('a goal change while a round is reserved drops the stale reservation unlogged', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      {
        when: '^\\[goal round 1 of 5\\] make every test pass',
        steps: [
          updateGoalStep({ goal_id: 'goal-1', revision: 2, action: 'complete', reason: 'checked' }),
          { reply: 'done' },
        ],
      },
      { when: ROUND, error: 'the stale round ran' },
    ],
  });
  let goalQueued = 0;
  const stop = onRoundQueued(handle, () => {
    goalQueued += 1;
    if (goalQueued === 1) {
      service.update(
        { goalId: 'goal-1', revision: 1 },
        { action: 'edit', objective: 'make every test pass', maxRounds: 5 },
        'human',
      );
    }
  });
  service.create({ objective: 'make the tests pass', maxRounds: 3, by: 'human' });
  service.arm();
  const settlement = await driver.whenSettled();
  stop();
  assert.equal(settlement.kind, 'complete');
  assert.equal(goalQueued, 2);
  const rounds = userMessages(handle.log.events).filter(
    (message) => message.data.source === 'goal',
  );
  assert.equal(rounds.length, 1);
  assert.match(rounds[0]?.data.text ?? '', /^\[goal round 1 of 5\] make every test pass\n/);
  handle.close();
});

test('the round cap stops the driver after exactly that many rounds, leaving the goal active and disarmed', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [{ when: ROUND, reply: 'worked on round {{1}}' }],
  });
  service.create({ objective: 'make the tests pass', maxRounds: 2, by: 'human' });
  service.arm();
  const settlement = await driver.whenSettled();
  assert.equal(settlement.kind, 'round-cap');
  assert.deepEqual(roundsLogged(handle.log.events), [1, 2]);
  assert.equal(service.goal?.phase, 'active');
  assert.equal(service.goal?.roundsStarted, 2);
  assert.equal(service.activation, 'disarmed');
  handle.close();
});

test('the default round cap comes from the settings', async () => {
  const { handle, service, driver } = startGoalAgent(
    { rules: [{ when: ROUND, reply: 'worked on round {{1}}' }] },
    { maxRounds: 3 },
  );
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.arm();
  assert.equal((await driver.whenSettled()).kind, 'round-cap');
  assert.deepEqual(roundsLogged(handle.log.events), [1, 2, 3]);
  handle.close();
});

test('a round that ends with a model error stops the driver with an error settlement', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      { when: '^\\[goal round 2 of', error: 'the model is unreachable' },
      { when: ROUND, reply: 'worked on round {{1}}' },
    ],
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.arm();
  const settlement = await driver.whenSettled();
  assert.equal(settlement.kind, 'error');
  assert.match(settlement.kind === 'error' ? settlement.message : '', /the model is unreachable/);
  assert.deepEqual(roundsLogged(handle.log.events), [1, 2]);
  assert.equal(service.activation, 'disarmed');
  assert.equal(service.goal?.phase, 'active');
  handle.close();
});

test('a disarmed goal settles at once and starts no round', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [{ when: ROUND, reply: 'worked on round {{1}}' }],
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  const settlement = await driver.whenSettled();
  assert.equal(settlement.kind, 'disarmed');
  assert.deepEqual(roundsLogged(handle.log.events), []);
  handle.close();
});

test('a reserved round dropped by cancelling the agent does not stall the driver', {
  timeout: 20_000,
}, async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      {
        when: ROUND,
        steps: [
          updateGoalStep({ goal_id: 'goal-1', revision: 1, action: 'complete', reason: 'checked' }),
          { reply: 'done' },
        ],
      },
    ],
  });
  let goalQueued = 0;
  const stop = onRoundQueued(handle, () => {
    goalQueued += 1;
    // The reserved round leaves the inbox before the agent takes it.
    if (goalQueued === 1) handle.agent.cancel('the human pressed escape');
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.arm();
  const settlement = await driver.whenSettled();
  stop();
  assert.equal(settlement.kind, 'complete');
  assert.equal(goalQueued, 2, 'the driver reserved round 1 again');
  assert.deepEqual(roundsLogged(handle.log.events), [1]);
  handle.close();
});

test('the first line of every round prompt is exactly [goal round N of M] OBJECTIVE, even for an objective written on several lines', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [{ when: ROUND, reply: 'worked on round {{1}}' }],
  });
  service.create({
    objective: '  migrate every module to ESM\n- keep npm test green\n\t- no new dependencies ',
    maxRounds: 2,
    by: 'human',
  });
  service.arm();
  assert.equal((await driver.whenSettled()).kind, 'round-cap');
  const objective = 'migrate every module to ESM - keep npm test green - no new dependencies';
  assert.equal(service.goal?.objective, objective);
  const rounds = userMessages(handle.log.events).filter(
    (message) => message.data.source === 'goal',
  );
  assert.deepEqual(
    rounds.map((message) => message.data.text.split('\n')[0]),
    [`[goal round 1 of 2] ${objective}`, `[goal round 2 of 2] ${objective}`],
  );
  assert.match(rounds[1]?.data.text ?? '', /\nThe previous round reported:\nworked on round 1\n/);
  handle.close();
});
