import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionLog } from '../../src/core/session-log.js';
import { GoalService } from '../../src/goal/goal-service.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { goalChanges } from './goal-fixture.js';

function newService(): { service: GoalService; log: SessionLog } {
  const log = SessionLog.create({ directory: temporaryFolder('loom-goal-service-') });
  return { service: new GoalService({ log }), log };
}

test('an update naming a stale revision fails with GOAL_STALE_REVISION naming both revisions', (t) => {
  const { service, log } = newService();
  t.after(() => log.close());
  service.create({ objective: 'ship it', by: 'human' });
  service.update({ goalId: 'goal-1', revision: 1 }, { action: 'pause' }, 'human');
  assert.throws(
    () => service.update({ goalId: 'goal-1', revision: 1 }, { action: 'resume' }, 'human'),
    (error: Error & { code?: string }) =>
      error.code === 'GOAL_STALE_REVISION' && /revision 2, not 1/.test(error.message),
  );
  assert.equal(service.goal?.phase, 'paused');
  assert.equal(goalChanges(log.events).length, 2, 'the refused update logged nothing');
});

test('an update at the revision it read succeeds and moves the revision on by one', (t) => {
  const { service, log } = newService();
  t.after(() => log.close());
  service.create({ objective: 'ship it', by: 'human' });
  const after = service.update(
    { goalId: 'goal-1', revision: 1 },
    { action: 'edit', objective: 'ship it twice' },
    'human',
  );
  assert.equal(after?.revision, 2);
  assert.equal(after?.objective, 'ship it twice');
  assert.deepEqual(goalChanges(log.events).at(-1), {
    goalId: 'goal-1',
    revision: 2,
    action: 'edit',
    phase: 'active',
    objective: 'ship it twice',
    by: 'human',
  });
});

for (const phase of ['active', 'paused', 'blocked'] as const) {
  test(`creating a goal while one is ${phase} fails with GOAL_EXISTS`, (t) => {
    const { service, log } = newService();
    t.after(() => log.close());
    service.create({ objective: 'first', by: 'human' });
    if (phase === 'paused') {
      service.update({ goalId: 'goal-1', revision: 1 }, { action: 'pause' }, 'human');
    }
    if (phase === 'blocked') {
      service.update(
        { goalId: 'goal-1', revision: 1 },
        { action: 'blocked', reason: 'no credentials' },
        'human',
      );
    }
    assert.equal(service.goal?.phase, phase);
    assert.throws(() => service.create({ objective: 'second', by: 'human' }), {
      code: 'GOAL_EXISTS',
      message: new RegExp(`goal-1 is ${phase}`),
    });
    assert.equal(goalChanges(log.events).filter((change) => change.action === 'create').length, 1);
  });
}

test('a new goal may be created once the previous one is complete', (t) => {
  const { service, log } = newService();
  t.after(() => log.close());
  service.create({ objective: 'first', by: 'human' });
  service.update(
    { goalId: 'goal-1', revision: 1 },
    { action: 'complete', reason: 'checked' },
    'human',
  );
  const second = service.create({ objective: 'second', by: 'human' });
  assert.equal(second.id, 'goal-2');
  assert.equal(second.revision, 1);
  assert.equal(second.phase, 'active');
});

test('a new goal may be created once the previous one is cleared', (t) => {
  const { service, log } = newService();
  t.after(() => log.close());
  service.create({ objective: 'first', by: 'human' });
  assert.equal(
    service.update({ goalId: 'goal-1', revision: 1 }, { action: 'clear' }, 'human'),
    null,
  );
  assert.equal(service.goal, null);
  const second = service.create({ objective: 'second', by: 'human' });
  assert.equal(second.id, 'goal-2');
});

test('an update of a goal that does not exist fails with GOAL_NOT_FOUND', (t) => {
  const { service, log } = newService();
  t.after(() => log.close());
  assert.throws(
    () => service.update({ goalId: 'goal-1', revision: 1 }, { action: 'pause' }, 'human'),
    { code: 'GOAL_NOT_FOUND', message: /no goal goal-1: this session has no goal/ },
  );
  service.create({ objective: 'first', by: 'human' });
  assert.throws(
    () => service.update({ goalId: 'goal-9', revision: 1 }, { action: 'pause' }, 'human'),
    { code: 'GOAL_NOT_FOUND', message: /no goal goal-9: the goal is goal-1/ },
  );
});

test('a change to a phase other than active disarms the goal', (t) => {
  const { service, log } = newService();
  t.after(() => log.close());
  service.create({ objective: 'first', by: 'human' });
  service.arm();
  assert.equal(service.activation, 'armed');
  service.update({ goalId: 'goal-1', revision: 1 }, { action: 'pause' }, 'human');
  assert.equal(service.activation, 'disarmed');
  assert.throws(() => service.arm(), { code: 'GOAL_PHASE' });
});

test('a service over an existing log starts disarmed even when its goal is active', (t) => {
  const { service, log } = newService();
  t.after(() => log.close());
  service.create({ objective: 'first', by: 'human' });
  service.arm();
  const again = new GoalService({ log });
  assert.equal(again.goal?.phase, 'active');
  assert.equal(again.activation, 'disarmed');
});
