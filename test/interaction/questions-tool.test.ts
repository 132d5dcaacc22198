import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  NO_USER_MESSAGE,
  noUser,
  type UserAnswerer,
  type UserRequest,
} from '../../src/interaction/user-questions.js';
import '../../src/interaction/questions-contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { checkPairs, checkSessionInvariants } from '../../src/testing/invariants.js';
import { deferred } from '../helpers/deferred.js';
import { askingScript, databaseQuestion, eventsOf, questionRuntime } from './questions-fixture.js';

const questionPairs = (events: Parameters<typeof checkPairs>[0]) =>
  checkPairs(events, {
    start: 'question/ask',
    end: 'question/answer',
    key: (event) => (event.data as { callId?: string }).callId,
  });

function recording(reply: (request: UserRequest) => ReturnType<UserAnswerer['answer']>) {
  const asked: Array<{ request: UserRequest; sessionId: string }> = [];
  const answerer: UserAnswerer = {
    answer(request, options) {
      asked.push({ request, sessionId: options.sessionId });
      return reply(request);
    },
  };
  return { asked, answerer };
}

test('ask_user_question: the answers reach the model, and question/ask + question/answer are logged', async () => {
  const { asked, answerer } = recording(async () => ({
    intent: 'questions',
    answers: [
      { question: databaseQuestion.question, labels: ['SQLite'] },
      { question: 'Which port?', labels: [], text: 'whatever is free' },
    ],
  }));
  const portQuestion = { question: 'Which port?', options: [{ label: '80' }, { label: '8080' }] };
  const runtime = questionRuntime(
    askingScript({ questions: [databaseQuestion, portQuestion] }),
    answerer,
  );
  const handle = runtime.start();
  const outcome = await handle.agent.prompt('ask');
  assert.equal(outcome.reason, 'completed');
  assert.match(outcome.text, /"Which database should the service use\?" → "SQLite"/);
  assert.match(outcome.text, /"Which port\?" → Other: "whatever is free"/);
  assert.deepEqual(
    asked.map((entry) => entry.sessionId),
    [handle.log.header.sessionId],
  );
  const events = handle.log.events;
  const [ask] = eventsOf(events, 'question/ask');
  assert.deepEqual(ask?.questions, [databaseQuestion, portQuestion]);
  const [answer] = eventsOf(events, 'question/answer');
  assert.equal(answer?.outcome, 'answered');
  assert.equal(answer?.callId, ask?.callId);
  assert.deepEqual(answer?.outcome === 'answered' && answer.answers[0]?.labels, ['SQLite']);
  assert.deepEqual(questionPairs(events), []);
  assert.deepEqual(checkSessionInvariants(events), []);
  handle.close();
});

test('a child that forges a root depth and session id in its arguments still gets DELEGATED_CALLER', async () => {
  const { asked, answerer } = recording(async () => {
    throw new Error('the answerer must not be reached');
  });
  const runtime = questionRuntime({ rules: [] }, answerer);
  const root = runtime.start();
  const rootId = root.log.header.sessionId;
  const forged = {
    questions: [databaseQuestion],
    delegationDepth: 0,
    sessionId: rootId,
    agentId: rootId,
  };
  const child = runtime.start({
    parentSession: rootId,
    delegationDepth: 1,
    model: createScriptedModel(askingScript(forged)),
  });
  const outcome = await child.agent.prompt('ask');
  assert.equal(outcome.reason, 'completed');
  assert.equal(asked.length, 0);
  const [result] = eventsOf(child.log.events, 'tool/result');
  assert.equal(result?.isError, true);
  assert.equal(result?.errorCode, 'DELEGATED_CALLER');
  assert.match(result?.content ?? '', /only the root agent can/);
  const [answer] = eventsOf(child.log.events, 'question/answer');
  assert.equal(answer?.outcome === 'refused' && answer.code, 'DELEGATED_CALLER');
  assert.deepEqual(questionPairs(child.log.events), []);
  assert.deepEqual(eventsOf(root.log.events, 'question/ask'), []);
  child.close();
  root.close();
});

test('headless without answers: NO_USER at once, and the model is told to decide itself', async () => {
  // noUser rejects without waiting on anything; the turn ends on its own, with no answerer call.
  const runtime = questionRuntime(askingScript({ questions: [databaseQuestion] }), noUser);
  const handle = runtime.start();
  const outcome = await handle.agent.prompt('ask');
  assert.equal(outcome.reason, 'completed');
  const [result] = eventsOf(handle.log.events, 'tool/result');
  assert.equal(result?.errorCode, 'NO_USER');
  assert.match(result?.content ?? '', new RegExp(NO_USER_MESSAGE));
  const [answer] = eventsOf(handle.log.events, 'question/answer');
  assert.deepEqual(
    answer && { outcome: answer.outcome, code: answer.outcome === 'refused' && answer.code },
    {
      outcome: 'refused',
      code: 'NO_USER',
    },
  );
  assert.deepEqual(questionPairs(handle.log.events), []);
  handle.close();
});

test('cancelling the turn while the question waits: a cancelled result, and the log pairs', async () => {
  const waiting = deferred();
  // This answerer never settles and ignores the signal: the tool itself must end the wait.
  const { answerer } = recording(() => {
    waiting.resolve();
    return new Promise(() => {});
  });
  const runtime = questionRuntime(askingScript({ questions: [databaseQuestion] }), answerer);
  const handle = runtime.start();
  const turn = handle.agent.prompt('ask');
  await waiting.promise;
  handle.agent.cancel('the user pressed Esc');
  const outcome = await turn;
  assert.equal(outcome.reason, 'aborted');
  const [result] = eventsOf(handle.log.events, 'tool/result');
  assert.equal(result?.errorCode, 'ABORTED');
  assert.match(result?.content ?? '', /cancelled: ask_user_question was stopped/);
  const [ask] = eventsOf(handle.log.events, 'question/ask');
  const answers = eventsOf(handle.log.events, 'question/answer');
  assert.equal(answers.length, 1);
  assert.equal(answers[0]?.outcome, 'cancelled');
  assert.equal(answers[0]?.callId, ask?.callId);
  assert.deepEqual(questionPairs(handle.log.events), []);
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
  handle.close();
});

test('bad questions fail naming the question, before anyone is asked', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ questions: [] }, /1-4 questions \(got 0\)/],
    [{ questions: Array(5).fill(databaseQuestion) }, /1-4 questions \(got 5\)/],
    [
      { questions: [{ question: 'Tabs or spaces?', options: [{ label: 'tabs' }] }] },
      /question 1 \("Tabs or spaces\?"\) needs 2-4 options \(got 1\)/,
    ],
    [
      {
        questions: [
          databaseQuestion,
          { question: 'Colour?', options: ['a', 'b', 'c', 'd', 'e'].map((label) => ({ label })) },
        ],
      },
      /question 2 \("Colour\?"\) needs 2-4 options \(got 5\)/,
    ],
    [
      { questions: [{ question: 'Go?', options: [{ label: 'yes' }, { label: 'Other' }] }] },
      /question 1 \("Go\?"\).*do not list "Other"/,
    ],
  ];
  for (const [args, message] of cases) {
    const { asked, answerer } = recording(async () => {
      throw new Error('not reached');
    });
    const runtime = questionRuntime(askingScript(args), answerer);
    const handle = runtime.start();
    await handle.agent.prompt('ask');
    const [result] = eventsOf(handle.log.events, 'tool/result');
    assert.equal(result?.isError, true);
    assert.match(result?.content ?? '', message);
    assert.equal(asked.length, 0);
    assert.deepEqual(eventsOf(handle.log.events, 'question/ask'), []);
    handle.close();
  }
});
