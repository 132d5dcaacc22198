import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { answersFileAnswerer, readAnswersFile } from '../../src/interaction/answers-file.js';
import { type Question, UserQuestionError } from '../../src/interaction/user-questions.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function answersFile(content: string): string {
  const path = join(temporaryFolder('loom-answers-'), 'answers.json');
  writeFileSync(path, content);
  return path;
}

const database: Question = {
  question: 'Which database?',
  header: 'Database',
  options: [{ label: 'Postgres' }, { label: 'SQLite' }],
};
const features: Question = {
  question: 'Which features?',
  options: [{ label: 'search' }, { label: 'export' }, { label: 'sharing' }],
  multiSelect: true,
};

test('answers file: keyed by header or question text; labels, lists of labels and free text', async () => {
  const path = answersFile(
    JSON.stringify({ Database: 'sqlite', 'Which features?': ['export', 'search', 'offline mode'] }),
  );
  const answerer = answersFileAnswerer(readAnswersFile(path), path);
  const reply = await answerer.answer(
    { intent: 'questions', questions: [database, features] },
    { sessionId: 'root' },
  );
  assert.deepEqual(reply, {
    intent: 'questions',
    answers: [
      { question: 'Which database?', labels: ['SQLite'] },
      { question: 'Which features?', labels: ['export', 'search'], text: 'offline mode' },
    ],
  });
  const free = answersFile(JSON.stringify({ 'Which database?': 'whatever the host gives us' }));
  assert.deepEqual(
    await answersFileAnswerer(readAnswersFile(free), free).answer(
      { intent: 'questions', questions: [database] },
      { sessionId: 'root' },
    ),
    {
      intent: 'questions',
      answers: [{ question: 'Which database?', labels: [], text: 'whatever the host gives us' }],
    },
  );
});

test('answers file: a question it does not answer is NO_USER naming the question', async () => {
  const path = answersFile(JSON.stringify({ Database: 'Postgres' }));
  const answerer = answersFileAnswerer(readAnswersFile(path), path);
  await assert.rejects(
    answerer.answer({ intent: 'questions', questions: [database, features] }, { sessionId: 'r' }),
    (error: unknown) =>
      error instanceof UserQuestionError &&
      error.code === 'NO_USER' &&
      error.message.includes('"Which features?"') &&
      error.message.includes(path) &&
      error.message.includes('decide yourself'),
  );
  // Keys are plain keys: names of Object's own members answer nothing.
  for (const key of ['constructor', 'toString', '__proto__']) {
    await assert.rejects(
      answerer.answer(
        {
          intent: 'questions',
          questions: [{ question: key, header: key, options: database.options }],
        },
        { sessionId: 'r' },
      ),
      (error: unknown) => error instanceof UserQuestionError && error.code === 'NO_USER',
    );
  }
});

test('answers file: two answers to a single-choice question are refused, not guessed', async () => {
  const path = answersFile(JSON.stringify({ Database: ['Postgres', 'SQLite'] }));
  await assert.rejects(
    answersFileAnswerer(readAnswersFile(path), path).answer(
      { intent: 'questions', questions: [database] },
      { sessionId: 'r' },
    ),
    /gives 2 answers to the single-choice question "Which database\?"/,
  );
});

test('answers file: "plan" approves or rejects with feedback; absent, a review is NO_USER', async () => {
  const approve = answersFile(JSON.stringify({ plan: 'approve' }));
  const reject = answersFile(JSON.stringify({ plan: 'split step 2 in two' }));
  const none = answersFile(JSON.stringify({ Database: 'SQLite' }));
  const review = { intent: 'plan-review', plan: '1. do it' } as const;
  assert.deepEqual(
    await answersFileAnswerer(readAnswersFile(approve), approve).answer(review, { sessionId: 'r' }),
    { intent: 'plan-review', approved: true },
  );
  assert.deepEqual(
    await answersFileAnswerer(readAnswersFile(reject), reject).answer(review, { sessionId: 'r' }),
    { intent: 'plan-review', approved: false, feedback: 'split step 2 in two' },
  );
  await assert.rejects(
    answersFileAnswerer(readAnswersFile(none), none).answer(review, { sessionId: 'r' }),
    (error: unknown) =>
      error instanceof UserQuestionError &&
      error.code === 'NO_USER' &&
      /"plan"/.test(error.message),
  );
});

test('answers file: a bad file fails naming the file and the entry', () => {
  const missing = join(temporaryFolder('loom-answers-'), 'absent.json');
  const cases: Array<[string, RegExp]> = [
    [answersFile('{not json'), /not valid JSON/],
    [answersFile('["Postgres"]'), /must be a JSON object/],
    [answersFile(JSON.stringify({ Database: 3 })), /the answer to "Database" must be a label/],
    [answersFile(JSON.stringify({ Database: [] })), /the answer to "Database" must be a label/],
    [
      answersFile(JSON.stringify({ plan: ['approve'] })),
      /"plan" must be "approve" or the feedback/,
    ],
  ];
  for (const [path, message] of cases) {
    assert.throws(
      () => readAnswersFile(path),
      (error: unknown) =>
        error instanceof Error && message.test(error.message) && error.message.includes(path),
    );
  }
  assert.throws(() => readAnswersFile(missing), new RegExp(`--answers ${missing}: cannot read it`));
});
