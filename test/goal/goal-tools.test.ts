import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { goalOf } from '../../src/goal/install.js';
import { GOAL_TOOL_NAMES } from '../../src/goal/tools.js';
import { requestPrompts } from '../helpers/session-files.js';
import {
  goalChanges,
  goalRuntime,
  ROUND,
  roundsLogged,
  startGoalAgent,
  toolResultsOf,
  updateGoalStep,
} from './goal-fixture.js';

type ResultData = SessionEvent<'tool/result'>['data'];

/** A rule whose turn calls update_goal with `args` once, then answers. */
const callsUpdate = (when: string, args: Record<string, unknown>) => ({
  when,
  steps: [updateGoalStep(args), { reply: 'reported' }],
});

function only<T>(items: readonly T[], what: string): T {
  assert.equal(items.length, 1, `expected one ${what}, got ${items.length}`);
  return items[0] as T;
}

function refusedWith(result: ResultData, code: string): void {
  assert.equal(result.isError, true, `expected ${code}, got ${result.content}`);
  assert.equal(result.errorCode, code, result.content);
}

for (const action of ['edit', 'pause', 'resume', 'clear'] as const) {
  test(`update_goal ${action} from a goal round is refused with GOAL_AUTHORITY`, async () => {
    const { handle, service, driver } = startGoalAgent({
      rules: [
        callsUpdate(ROUND, {
          goal_id: 'goal-1',
          revision: 1,
          action,
          ...(action === 'edit' ? { objective: 'something easier' } : {}),
        }),
      ],
    });
    service.create({ objective: 'make the tests pass', maxRounds: 1, by: 'human' });
    service.arm();
    assert.equal((await driver.whenSettled()).kind, 'round-cap');
    const result = only(toolResultsOf(handle.log.events, 'update_goal'), 'update_goal result');
    refusedWith(result, 'GOAL_AUTHORITY');
    assert.match(result.content, new RegExp(`update_goal ${action} needs the user's own request`));
    assert.equal(goalChanges(handle.log.events).length, 1, 'only the create was logged');
    assert.equal(service.goal?.revision, 1);
    handle.close();
  });
}

test('create_goal from a goal round is refused with GOAL_AUTHORITY', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      {
        when: ROUND,
        steps: [
          { tools: [{ name: 'create_goal', arguments: { objective: 'a goal of my own' } }] },
          { reply: 'reported' },
        ],
      },
    ],
  });
  service.create({ objective: 'make the tests pass', maxRounds: 1, by: 'human' });
  service.arm();
  assert.equal((await driver.whenSettled()).kind, 'round-cap');
  refusedWith(
    only(toolResultsOf(handle.log.events, 'create_goal'), 'create_goal result'),
    'GOAL_AUTHORITY',
  );
  assert.equal(goalChanges(handle.log.events).length, 1, 'only the human create was logged');
  handle.close();
});

test('create_goal from a turn with no human input that is not a round is refused with GOAL_AUTHORITY', async () => {
  const { handle, service } = startGoalAgent({
    rules: [
      {
        when: '^job 7 finished',
        steps: [
          { tools: [{ name: 'create_goal', arguments: { objective: 'fix what the job found' } }] },
          { reply: 'noted' },
        ],
      },
    ],
  });
  handle.agent.followup('job 7 finished: 3 failures', { source: 'job' });
  await handle.agent.whenIdle();
  refusedWith(
    only(toolResultsOf(handle.log.events, 'create_goal'), 'create_goal result'),
    'GOAL_AUTHORITY',
  );
  assert.equal(service.goal, null);
  assert.equal(service.activation, 'disarmed');
  handle.close();
});

for (const action of ['complete', 'pause'] as const) {
  test(`update_goal ${action} from a turn with no human input that is not a round is refused with GOAL_AUTHORITY`, async () => {
    const { handle, service } = startGoalAgent({
      rules: [
        callsUpdate('^the subagent answered', {
          goal_id: 'goal-1',
          revision: 1,
          action,
          reason: 'the subagent says it is done',
        }),
      ],
    });
    service.create({ objective: 'make the tests pass', by: 'human' });
    handle.agent.followup('the subagent answered: all green', { source: 'subagent' });
    await handle.agent.whenIdle();
    refusedWith(
      only(toolResultsOf(handle.log.events, 'update_goal'), 'update_goal result'),
      'GOAL_AUTHORITY',
    );
    assert.equal(service.goal?.phase, 'active');
    assert.equal(service.goal?.revision, 1);
    handle.close();
  });
}

test('update_goal complete from the current goal round is accepted as by round', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      callsUpdate(ROUND, {
        goal_id: 'goal-1',
        revision: 1,
        action: 'complete',
        reason: 'npm test: 12 passing',
      }),
    ],
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.arm();
  assert.equal((await driver.whenSettled()).kind, 'complete');
  const change = goalChanges(handle.log.events).at(-1);
  assert.deepEqual(change, {
    goalId: 'goal-1',
    revision: 2,
    action: 'complete',
    phase: 'complete',
    reason: 'npm test: 12 passing',
    by: 'round',
  });
  assert.deepEqual(roundsLogged(handle.log.events), [1]);
  handle.close();
});

test('update_goal from a turn holding the human message is accepted as by model', async () => {
  const { handle, service } = startGoalAgent({
    rules: [callsUpdate('^please pause', { goal_id: 'goal-1', revision: 1, action: 'pause' })],
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  await handle.agent.prompt('please pause the goal');
  const change = goalChanges(handle.log.events).at(-1);
  assert.equal(change?.action, 'pause');
  assert.equal(change?.by, 'model');
  assert.equal(service.goal?.phase, 'paused');
  handle.close();
});

test('update_goal resume from a turn holding the human message arms the goal', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      callsUpdate('^go on', { goal_id: 'goal-1', revision: 2, action: 'resume' }),
      callsUpdate(ROUND, { goal_id: 'goal-1', revision: 3, action: 'complete', reason: 'checked' }),
    ],
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.update({ goalId: 'goal-1', revision: 1 }, { action: 'pause' }, 'human');
  await handle.agent.prompt('go on with the goal');
  assert.equal(service.activation, 'armed');
  assert.equal((await driver.whenSettled()).kind, 'complete');
  assert.deepEqual(roundsLogged(handle.log.events), [1]);
  handle.close();
});

test('update_goal resume with max_rounds raises the cap of a goal that reached it', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      callsUpdate('^two more rounds', {
        goal_id: 'goal-1',
        revision: 1,
        action: 'resume',
        max_rounds: 3,
      }),
      { when: ROUND, reply: 'worked on round {{1}}' },
    ],
  });
  service.create({ objective: 'make the tests pass', maxRounds: 1, by: 'human' });
  service.arm();
  assert.equal((await driver.whenSettled()).kind, 'round-cap');
  await handle.agent.prompt('two more rounds please');
  assert.equal(service.goal?.maxRounds, 3);
  assert.equal((await driver.whenSettled()).kind, 'round-cap');
  assert.deepEqual(roundsLogged(handle.log.events), [1, 2, 3]);
  handle.close();
});

/** A goal whose rounds report `blocked` with the reason `reasons[round - 1]`. */
function blockingAgent(reasons: string[], blockedAfterConsecutiveRounds?: number) {
  const fixture = startGoalAgent(
    {
      rules: reasons.map((reason, index) =>
        callsUpdate(`^\\[goal round ${index + 1} of`, {
          goal_id: 'goal-1',
          revision: 1,
          action: 'blocked',
          reason,
        }),
      ),
    },
    blockedAfterConsecutiveRounds === undefined ? {} : { blockedAfterConsecutiveRounds },
  );
  fixture.service.create({ objective: 'deploy to staging', maxRounds: 10, by: 'human' });
  fixture.service.arm();
  return fixture;
}

test('blocked from a round is refused with GOAL_BLOCK_EARLY in rounds 1 and 2 and accepted in round 3 with the same reason', async () => {
  const reason = 'the staging credentials are missing';
  const { handle, service, driver } = blockingAgent([reason, reason, reason]);
  const settlement = await driver.whenSettled();
  assert.equal(settlement.kind, 'blocked');
  const results = toolResultsOf(handle.log.events, 'update_goal');
  assert.equal(results.length, 3);
  refusedWith(results[0] as ResultData, 'GOAL_BLOCK_EARLY');
  assert.match(
    results[0]?.content ?? '',
    /reported in 1 consecutive round\(s\), and blocked needs 3\. Try a different approach/,
  );
  refusedWith(results[1] as ResultData, 'GOAL_BLOCK_EARLY');
  assert.match(results[1]?.content ?? '', /reported in 2 consecutive round/);
  assert.equal(results[2]?.isError, false, results[2]?.content);
  assert.deepEqual(roundsLogged(handle.log.events), [1, 2, 3]);
  assert.equal(service.goal?.phase, 'blocked');
  assert.equal(service.goal?.reason, reason);
  assert.equal(goalChanges(handle.log.events).at(-1)?.by, 'round');
  handle.close();
});

test('a different block reason in round 2 starts the streak again', async () => {
  const first = 'the staging credentials are missing';
  const second = 'the staging server does not answer';
  const { handle, driver } = blockingAgent([first, second, second, second]);
  assert.equal((await driver.whenSettled()).kind, 'blocked');
  const results = toolResultsOf(handle.log.events, 'update_goal');
  assert.deepEqual(
    results.map((result) => result.errorCode ?? 'accepted'),
    ['GOAL_BLOCK_EARLY', 'GOAL_BLOCK_EARLY', 'GOAL_BLOCK_EARLY', 'accepted'],
  );
  assert.match(results[1]?.content ?? '', /reported in 1 consecutive round/);
  assert.match(results[2]?.content ?? '', /reported in 2 consecutive round/);
  assert.deepEqual(roundsLogged(handle.log.events), [1, 2, 3, 4]);
  handle.close();
});

test('blocked from a round honours blockedAfterConsecutiveRounds from the settings', async () => {
  const reason = 'the staging credentials are missing';
  const { handle, driver } = blockingAgent([reason, reason], 2);
  assert.equal((await driver.whenSettled()).kind, 'blocked');
  const results = toolResultsOf(handle.log.events, 'update_goal');
  assert.deepEqual(
    results.map((result) => result.errorCode ?? 'accepted'),
    ['GOAL_BLOCK_EARLY', 'accepted'],
  );
  assert.match(results[0]?.content ?? '', /blocked needs 2/);
  handle.close();
});

test('the goal tools return JSON objects with the fields of SPEC 5', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [
      {
        when: '^what goal',
        steps: [{ tools: [{ name: 'get_goal' }] }, { reply: 'none yet' }],
      },
      {
        when: '^keep working',
        steps: [
          {
            tools: [
              {
                name: 'create_goal',
                arguments: { objective: 'make the tests pass', max_rounds: 1 },
              },
            ],
          },
          { tools: [{ name: 'get_goal' }] },
          { reply: 'goal set' },
        ],
      },
      callsUpdate(ROUND, {
        goal_id: 'goal-1',
        revision: 1,
        action: 'complete',
        reason: 'npm test passes',
      }),
    ],
  });
  await handle.agent.prompt('what goal is set?');
  await handle.agent.prompt('keep working until the tests pass');
  assert.equal(service.activation, 'armed', 'create_goal arms the goal');
  assert.equal((await driver.whenSettled()).kind, 'complete');
  const parsed = (name: string) =>
    toolResultsOf(handle.log.events, name).map((result) => {
      assert.equal(result.isError, false, result.content);
      return JSON.parse(result.content) as unknown;
    });
  const created = {
    goal_id: 'goal-1',
    revision: 1,
    objective: 'make the tests pass',
    phase: 'active',
    rounds_started: 0,
    max_rounds: 1,
  };
  assert.deepEqual(parsed('get_goal'), [{ goal: null }, created]);
  assert.deepEqual(parsed('create_goal'), [created]);
  assert.deepEqual(parsed('update_goal'), [
    { ...created, revision: 2, phase: 'complete', rounds_started: 1, reason: 'npm test passes' },
  ]);
  assert.equal(goalChanges(handle.log.events)[0]?.by, 'model');
  handle.close();
});

test('a child agent gets no goal tools, no goal section and no goal service', async () => {
  const { runtime } = goalRuntime({ default: { reply: 'child here' } });
  const root = runtime.start();
  const child = runtime.start({ parentSession: root.log.header.sessionId, delegationDepth: 1 });
  await child.agent.prompt('hello');
  const [request] = requestPrompts(child.log.events);
  assert.ok(request, 'the child made a request');
  const names = request.tools.map((tool) => tool.name);
  for (const name of GOAL_TOOL_NAMES) assert.ok(!names.includes(name), `the child has ${name}`);
  assert.doesNotMatch(request.system, /# Goal|goal round/);
  assert.equal(goalOf(child), undefined);
  const rootNames = root.tools.visible().map((tool) => tool.name);
  for (const name of GOAL_TOOL_NAMES) assert.ok(rootNames.includes(name), `the root lacks ${name}`);
  child.close();
  root.close();
});
