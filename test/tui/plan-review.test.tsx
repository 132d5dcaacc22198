/**
 * The plan review widget: the plan, then approve, or keep planning with feedback the
 * model reads; it answers exactly once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { PlanReview } from '../../src/tui/components/plan-review.js';
import { answerRecorder, frameMatching, KEY, widgetReady } from './widget-harness.js';

type Review = { approved: boolean; feedback?: string };

function reviewOf(plan: string) {
  const recorder = answerRecorder<Review>();
  const view = render(
    <PlanReview
      request={{ kind: 'plan-review', id: 'question-1', plan, resolve: recorder.resolve }}
      width={80}
    />,
  );
  return { view, recorder };
}

const PLAN = '# Rename\n\n1. change `a.ts`\n2. run the tests';

test('the plan is shown; Enter on the first choice approves it', async () => {
  const { view, recorder } = reviewOf(PLAN);
  const frame = await widgetReady(view, 'Plan ready for review');
  assert.match(frame, /Rename/);
  assert.match(frame, /run the tests/);
  assert.match(frame, /› 1\. Approve/);
  assert.match(frame, /2\. Keep planning/);
  view.stdin.write(KEY.enter);
  view.stdin.write('k');
  assert.deepEqual(await recorder.next, { approved: true });
  assert.equal(recorder.answers.length, 1, 'answered exactly once');
  view.unmount();
});

test('keep planning asks what should change and sends it as feedback', async () => {
  const { view, recorder } = reviewOf(PLAN);
  await widgetReady(view, 'Plan ready for review');
  view.stdin.write(KEY.down);
  await frameMatching(view.lastFrame, /› 2\. Keep planning/);
  view.stdin.write(KEY.enter);
  await frameMatching(view.lastFrame, 'What should change?');
  view.stdin.write('also update the docs');
  await frameMatching(view.lastFrame, 'What should change? also update the docs');
  assert.equal(recorder.answers.length, 0, 'typing a or k in the feedback does not answer');
  view.stdin.write(KEY.enter);
  assert.deepEqual(await recorder.next, { approved: false, feedback: 'also update the docs' });
  view.unmount();
});

test('k with empty feedback keeps planning without feedback; a approves', async () => {
  const first = reviewOf(PLAN);
  await widgetReady(first.view, 'Plan ready for review');
  first.view.stdin.write('k');
  await frameMatching(first.view.lastFrame, 'What should change?');
  first.view.stdin.write(KEY.enter);
  assert.deepEqual(await first.recorder.next, { approved: false });
  first.view.unmount();

  const second = reviewOf(PLAN);
  await widgetReady(second.view, 'Plan ready for review');
  second.view.stdin.write('a');
  assert.deepEqual(await second.recorder.next, { approved: true });
  second.view.unmount();
});
