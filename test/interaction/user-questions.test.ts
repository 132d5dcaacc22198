import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type LineageOf,
  noUser,
  rootOnlyQuestions,
  type UserAnswerer,
  UserQuestionError,
  type UserRequest,
} from '../../src/interaction/user-questions.js';

const lineage: LineageOf = (sessionId) =>
  ({ 'root-1': { delegationDepth: 0 }, 'child-1': { delegationDepth: 1 } })[sessionId];

const proceed: UserRequest = {
  intent: 'questions',
  questions: [{ question: 'proceed?', options: [{ label: 'yes' }, { label: 'no' }] }],
};

function recordingAnswerer() {
  const asked: UserRequest[] = [];
  const answerer: UserAnswerer = {
    async answer(request) {
      asked.push(request);
      return { intent: 'questions', answers: [{ question: 'proceed?', labels: ['yes'] }] };
    },
  };
  return { asked, questions: rootOnlyQuestions(lineage, answerer) };
}

test('a delegated caller may not ask the user (DELEGATED_CALLER), before anything is shown', async () => {
  const { asked, questions } = recordingAnswerer();
  await assert.rejects(
    questions.ask(proceed, { sessionId: 'child-1' }),
    (error: unknown) =>
      error instanceof UserQuestionError &&
      error.code === 'DELEGATED_CALLER' &&
      /child-1/.test(error.message) &&
      /Report the question to your parent/.test(error.message),
  );
  assert.equal(asked.length, 0);
});

test('a session the runtime does not know is refused like a child', async () => {
  const { asked, questions } = recordingAnswerer();
  await assert.rejects(
    questions.ask(proceed, { sessionId: 'forged' }),
    (error: unknown) => error instanceof UserQuestionError && error.code === 'DELEGATED_CALLER',
  );
  assert.equal(asked.length, 0);
});

test('a root caller is passed through with its request intact', async () => {
  const { asked, questions } = recordingAnswerer();
  const reply = await questions.ask(proceed, { sessionId: 'root-1' });
  assert.deepEqual(reply, {
    intent: 'questions',
    answers: [{ question: 'proceed?', labels: ['yes'] }],
  });
  assert.deepEqual(asked, [proceed]);
});

test('with nobody to answer, a root caller gets NO_USER at once and a child DELEGATED_CALLER', async () => {
  const questions = rootOnlyQuestions(lineage, noUser);
  await assert.rejects(
    questions.ask(proceed, { sessionId: 'root-1' }),
    (error: unknown) =>
      error instanceof UserQuestionError &&
      error.code === 'NO_USER' &&
      /decide yourself and say what you assumed/.test(error.message),
  );
  await assert.rejects(
    questions.ask(proceed, { sessionId: 'child-1' }),
    (error: unknown) => error instanceof UserQuestionError && error.code === 'DELEGATED_CALLER',
  );
});
