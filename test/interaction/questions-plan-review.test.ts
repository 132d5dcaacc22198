/**
 * Plan review (`intent: 'plan-review'`) in each answerer the plan layer relies on: the terminal
 * prompt (driven through fake streams, keys typed once the prompt is drawn) and the ACP client
 * (a fake client answering permission requests or forms).
 */
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import type { AgentContext } from '@agentclientprotocol/sdk';
import { clientQuestionAnswerer } from '../../src/acp/question-answerer.js';
import { terminalAnswerer } from '../../src/interaction/terminal-answerer.js';

const review = { intent: 'plan-review', plan: '1. add the parser\n2. test it' } as const;

function fakeTerminal() {
  const input = new PassThrough();
  let shown = '';
  const waiters: Array<{ pattern: RegExp; from: number; resolve: () => void }> = [];
  let mark = 0;
  const output = new Writable({
    write(chunk, _encoding, done) {
      shown += String(chunk);
      for (const waiter of [...waiters]) {
        if (!waiter.pattern.test(shown.slice(waiter.from))) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      done();
    },
  });
  return {
    input,
    output,
    shown: () => shown,
    async waitFor(pattern: RegExp) {
      const from = mark;
      await new Promise<void>((resolve) => {
        if (pattern.test(shown.slice(from))) resolve();
        else waiters.push({ pattern, from, resolve });
      });
      mark = shown.length;
    },
  };
}

test('terminal: a plan is shown and approved', async () => {
  const terminal = fakeTerminal();
  const reply = terminalAnswerer(terminal, () => assert.fail('no Ctrl-C')).answer(review, {
    sessionId: 'root',
  });
  await terminal.waitFor(/Approve this plan\?/);
  assert.match(terminal.shown(), /add the parser/);
  terminal.input.write('\r');
  assert.deepEqual(await reply, { intent: 'plan-review', approved: true });
});

test('terminal: a plan rejected with feedback', async () => {
  const terminal = fakeTerminal();
  const reply = terminalAnswerer(terminal, () => assert.fail('no Ctrl-C')).answer(review, {
    sessionId: 'root',
  });
  await terminal.waitFor(/Approve this plan\?/);
  terminal.input.write('\x1b[B\r');
  await terminal.waitFor(/What should change in the plan\?/);
  terminal.input.write('test the errors too\r');
  assert.deepEqual(await reply, {
    intent: 'plan-review',
    approved: false,
    feedback: 'test the errors too',
  });
});

test('terminal: Ctrl-C in a prompt interrupts the run, and the wait ends with the turn', async () => {
  const terminal = fakeTerminal();
  const turn = new AbortController();
  let interrupted = 0;
  const reply = terminalAnswerer(terminal, () => {
    interrupted += 1;
    turn.abort(new Error('interrupted by the user'));
  }).answer(review, { sessionId: 'root', signal: turn.signal });
  await terminal.waitFor(/Approve this plan\?/);
  terminal.input.write('\x03');
  await assert.rejects(reply, /interrupted by the user/);
  assert.equal(interrupted, 1);
});

function fakeClient(answer: (method: string, params: Record<string, unknown>) => unknown) {
  const calls: Array<{ method: string; params: Record<string, unknown> }> = [];
  const client = {
    request: async (method: string, params: Record<string, unknown>) => {
      calls.push({ method, params });
      return answer(method, params);
    },
  } as unknown as AgentContext;
  return { client, calls };
}

test('ACP without forms: a plan review is Approve / Keep planning as a permission request', async () => {
  for (const [optionId, approved] of [
    ['approve', true],
    ['reject', false],
  ] as const) {
    const { client, calls } = fakeClient(() => ({ outcome: { outcome: 'selected', optionId } }));
    const reply = await clientQuestionAnswerer(client, false).answer(review, { sessionId: 's-1' });
    assert.deepEqual(reply, { intent: 'plan-review', approved });
    assert.equal(calls[0]?.method, 'session/request_permission');
    assert.equal(calls[0]?.params.sessionId, 's-1');
  }
});

test('ACP with forms: a plan review is a form with a decision and feedback', async () => {
  const { client, calls } = fakeClient(() => ({
    action: 'accept',
    content: { decision: 'reject', feedback: 'fewer steps' },
  }));
  const reply = await clientQuestionAnswerer(client, true).answer(review, { sessionId: 's-1' });
  assert.deepEqual(reply, { intent: 'plan-review', approved: false, feedback: 'fewer steps' });
  assert.equal(calls[0]?.method, 'elicitation/create');
  assert.match(String(calls[0]?.params.message), /add the parser/);
  const declined = fakeClient(() => ({ action: 'decline' }));
  await assert.rejects(
    clientQuestionAnswerer(declined.client, true).answer(review, { sessionId: 's-1' }),
    /the user declined the question; nobody can answer here/,
  );
});
