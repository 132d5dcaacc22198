import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  noHuman,
  rootOnlyQuestions,
  type UserQuestion,
  UserQuestionError,
} from '../../src/interaction/user-questions.js';

function recordingAsker() {
  const asked: UserQuestion[] = [];
  const questions = rootOnlyQuestions(async (question) => {
    asked.push(question);
    return { answer: `yes to ${question.question}` };
  });
  return { asked, questions };
}

test('a delegated caller may not ask the user (DELEGATED_CALLER), before anything is shown', async () => {
  const { asked, questions } = recordingAsker();
  await assert.rejects(
    questions.ask({ caller: { sessionId: 'child-1', delegationDepth: 1 }, question: 'proceed?' }),
    (error: unknown) =>
      error instanceof UserQuestionError &&
      error.code === 'DELEGATED_CALLER' &&
      /child-1/.test(error.message) &&
      /Report the question to your parent/.test(error.message),
  );
  assert.equal(asked.length, 0);
});

test('a root caller is passed through with its question intact', async () => {
  const { asked, questions } = recordingAsker();
  const question: UserQuestion = {
    caller: { sessionId: 'root-1', delegationDepth: 0 },
    question: 'proceed?',
    options: ['yes', 'no'],
    strict: true,
  };
  assert.deepEqual(await questions.ask(question), { answer: 'yes to proceed?' });
  assert.deepEqual(asked, [question]);
});

test('a headless run refuses a root caller with NO_HUMAN and a child with DELEGATED_CALLER', async () => {
  await assert.rejects(
    noHuman.ask({ caller: { sessionId: 'root', delegationDepth: 0 }, question: 'q' }),
    (error: unknown) => error instanceof UserQuestionError && error.code === 'NO_HUMAN',
  );
  await assert.rejects(
    noHuman.ask({ caller: { sessionId: 'child', delegationDepth: 2 }, question: 'q' }),
    (error: unknown) => error instanceof UserQuestionError && error.code === 'DELEGATED_CALLER',
  );
});
