/**
 * Plan mode's block restated after a compaction, and the fold it reads: plan mode on (enforced
 * or not), else the latest approved plan verbatim, which a new planning round clears.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent, SessionEventMap } from '../../src/core/session-events.js';
import { foldPlanMode, foldPlanState } from '../../src/plan/plan-mode.js';
import { planStandingText } from '../../src/plan/plan-text.js';

const PLAN = '1. Edit `src/a.ts`\n2. Run the tests';

type PlanEvent = {
  [Type in 'plan/mode' | 'plan/approved' | 'plan/presented']: [Type, SessionEventMap[Type]];
}['plan/mode' | 'plan/approved' | 'plan/presented'];

function events(...entries: PlanEvent[]): SessionEvent[] {
  return entries.map(
    ([type, data], index) => ({ type, seq: index + 1, time: index, data }) as SessionEvent,
  );
}

test('the plan block says plan mode is on and whether it is enforced', () => {
  const enforced = planStandingText({ inPlanMode: true, enforced: true, approvedPlan: PLAN });
  assert.match(enforced, /^# Plan mode\nPlan mode is on \(enforced: changing tools are refused\)/);
  assert.match(enforced, /exit_plan_mode/);
  assert.doesNotMatch(enforced, /Edit `src/, 'in plan mode no approved plan is restated');
  assert.match(
    planStandingText({ inPlanMode: true, enforced: false }),
    /^# Plan mode\nPlan mode is on \(not enforced/,
  );
});

test('out of plan mode the plan block is the approved plan verbatim, or nothing', () => {
  assert.equal(
    planStandingText({ inPlanMode: false, enforced: false, approvedPlan: PLAN }),
    `# Approved plan\nThe user approved this plan and plan mode ended with it:\n\n${PLAN}`,
  );
  assert.equal(planStandingText({ inPlanMode: false, enforced: false }), '');
});

test('the fold keeps the latest approved plan until plan mode starts again', () => {
  const approvedTwice = events(
    ['plan/mode', { mode: 'plan', by: 'user' }],
    ['plan/approved', { plan: 'first' }],
    ['plan/mode', { mode: 'default', by: 'approval' }],
    ['plan/mode', { mode: 'plan', by: 'user' }],
    ['plan/presented', { plan: 'shown, not approved' }],
    ['plan/approved', { plan: PLAN }],
    ['plan/mode', { mode: 'default', by: 'approval' }],
  );
  assert.deepEqual(foldPlanState(approvedTwice), { mode: 'default', approvedPlan: PLAN });
  assert.deepEqual(foldPlanState(approvedTwice.slice(0, 3)), {
    mode: 'default',
    approvedPlan: 'first',
  });
  assert.deepEqual(
    foldPlanState(approvedTwice.slice(0, 5)),
    { mode: 'plan' },
    'a new planning round clears the plan approved before it; a presented plan is not approved',
  );
  assert.equal(foldPlanMode(approvedTwice.slice(0, 4)), 'plan');
});
