import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROUND, roundsLogged, startGoalAgent } from './goal-fixture.js';

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
