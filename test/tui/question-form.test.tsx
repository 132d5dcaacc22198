/**
 * The questions widget: single choice (arrows and Enter, or a digit), multiple choice (Space or
 * a digit toggles, Enter confirms), "Other" with free text, several questions in a row; the
 * answers reach the tool exactly as `QuestionAnswer`s, once, after the last question.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import type { Question, QuestionAnswer } from '../../src/interaction/user-questions.js';
import { QuestionForm } from '../../src/tui/components/question-form.js';
import { answerRecorder, frameMatching, KEY, widgetReady } from './widget-harness.js';

const database: Question = {
  question: 'Which database?',
  header: 'Storage',
  options: [
    { label: 'SQLite', description: 'one file' },
    { label: 'Postgres', description: 'a server' },
  ],
};

const checks: Question = {
  question: 'Which checks should run?',
  options: [{ label: 'lint' }, { label: 'types' }, { label: 'tests' }],
  multiSelect: true,
};

function formOf(questions: Question[]) {
  const recorder = answerRecorder<QuestionAnswer[]>();
  const view = render(
    <QuestionForm
      request={{ kind: 'questions', id: 'question-1', questions, resolve: recorder.resolve }}
    />,
  );
  return { view, recorder };
}

test('a single choice: the arrows move the cursor and Enter answers with that option', async () => {
  const { view, recorder } = formOf([database]);
  const frame = await widgetReady(view, 'Which database?');
  assert.match(frame, /Storage: Which database\?/);
  assert.match(frame, /› 1\. SQLite — one file/);
  assert.match(frame, / {2}2\. Postgres — a server/);
  assert.match(frame, / {2}3\. Other — type your own answer/);
  view.stdin.write(KEY.down);
  await frameMatching(view.lastFrame, /› 2\. Postgres/);
  view.stdin.write(KEY.enter);
  view.stdin.write('1');
  assert.deepEqual(await recorder.next, [{ question: 'Which database?', labels: ['Postgres'] }]);
  assert.equal(recorder.answers.length, 1, 'answered exactly once');
  view.unmount();
});

test('several questions in a row: each answer stays in view, all go back together', async () => {
  const { view, recorder } = formOf([database, checks]);
  await widgetReady(view, '(1/2)');
  view.stdin.write('1');
  const second = await frameMatching(view.lastFrame, '(2/2)');
  assert.match(second, /✓ Which database\? → SQLite/);
  assert.match(second, /\[ \] lint/);
  assert.equal(recorder.answers.length, 0, 'nothing is answered before the last question');
  view.stdin.write('3');
  await frameMatching(view.lastFrame, /\[x\] tests/);
  view.stdin.write(KEY.up);
  await frameMatching(view.lastFrame, /› 2\. \[ \] types/);
  view.stdin.write(KEY.up);
  await frameMatching(view.lastFrame, /› 1\. \[ \] lint/);
  view.stdin.write(KEY.space);
  await frameMatching(view.lastFrame, /\[x\] lint/);
  view.stdin.write(KEY.enter);
  assert.deepEqual(await recorder.next, [
    { question: 'Which database?', labels: ['SQLite'] },
    { question: 'Which checks should run?', labels: ['lint', 'tests'] },
  ]);
  view.unmount();
});

test('a multiple choice toggles off again and asks for at least one before Enter answers', async () => {
  const { view, recorder } = formOf([checks]);
  await widgetReady(view, 'Which checks should run?');
  view.stdin.write(KEY.space);
  await frameMatching(view.lastFrame, /\[x\] lint/);
  view.stdin.write('1');
  await frameMatching(view.lastFrame, /\[ \] lint/);
  view.stdin.write(KEY.enter);
  await frameMatching(view.lastFrame, 'choose at least one');
  assert.equal(recorder.answers.length, 0);
  view.stdin.write('2');
  await frameMatching(view.lastFrame, /\[x\] types/);
  view.stdin.write(KEY.enter);
  assert.deepEqual(await recorder.next, [
    { question: 'Which checks should run?', labels: ['types'] },
  ]);
  view.unmount();
});

test('"Other" on a single choice answers with the typed text and no option', async () => {
  const { view, recorder } = formOf([database]);
  await widgetReady(view, 'Which database?');
  view.stdin.write('3');
  await frameMatching(view.lastFrame, 'Other: ');
  view.stdin.write('DuckDB, 1 file');
  await frameMatching(view.lastFrame, 'Other: DuckDB, 1 file');
  assert.equal(recorder.answers.length, 0, 'digits typed as text choose nothing');
  view.stdin.write(KEY.enter);
  assert.deepEqual(await recorder.next, [
    { question: 'Which database?', labels: [], text: 'DuckDB, 1 file' },
  ]);
  view.unmount();
});

test('"Other" on a multiple choice joins the chosen options; empty text goes back', async () => {
  const { view, recorder } = formOf([checks]);
  await widgetReady(view, 'Which checks should run?');
  view.stdin.write('4');
  await frameMatching(view.lastFrame, 'Other: ');
  view.stdin.write(KEY.enter);
  await frameMatching(view.lastFrame, /› 4\. \[ \] Other — type your own answer/);
  view.stdin.write(KEY.enter);
  await frameMatching(view.lastFrame, 'Other: ');
  view.stdin.write('audit');
  await frameMatching(view.lastFrame, 'Other: audit');
  view.stdin.write(KEY.enter);
  await frameMatching(view.lastFrame, /\[x\] Other — “audit”/);
  view.stdin.write('2');
  await frameMatching(view.lastFrame, /\[x\] types/);
  view.stdin.write(KEY.enter);
  assert.deepEqual(await recorder.next, [
    { question: 'Which checks should run?', labels: ['types'], text: 'audit' },
  ]);
  view.unmount();
});
