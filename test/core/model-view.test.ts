/**
 * Core's `model/view` hook: a handler on the agent's scope changes what each request sends (the
 * log keeps what it derived), and only with a handler is a request refused with
 * `contextOverflow` asked once more, with reason `overflow`; a second refusal ends the turn.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { type ModelViewReason, modelView } from '../../src/core/model-view.js';
import type {
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelStreamPart,
} from '../../src/llm/contract.js';
import { agentFixture } from './agent-fixture.js';

/** Refuses its first `refusals` requests as too large, then answers `ok`. */
function refusingModel(refusals: number): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'test:refusing',
    requests,
    async *stream(request): AsyncIterable<ModelStreamPart> {
      requests.push(request);
      if (requests.length <= refusals) {
        const error = {
          message: 'context length exceeded',
          retryable: false,
          contextOverflow: true,
        };
        yield { type: 'error', error };
        return;
      }
      yield { type: 'text', text: 'ok' };
      yield { type: 'finish', reason: 'stop', usage: { input: 10, output: 1 } };
    },
  };
}

test('a model/view handler changes what is sent, and the log keeps what it derived', async () => {
  const model = refusingModel(0);
  const root = new Context();
  const handle = agentFixture({ model, root });
  const reasons: ModelViewReason[] = [];
  handle.context.handle(modelView, (input, messages): ModelMessage[] => {
    reasons.push(input.reason);
    assert.equal(input.log, handle.log);
    return messages.map((message) =>
      message.role === 'user' ? { ...message, content: 'shrunk' } : message,
    );
  });
  try {
    assert.equal((await handle.agent.prompt('a long question')).reason, 'completed');
    assert.deepEqual(reasons, ['request']);
    assert.deepEqual(model.requests[0]?.messages, [{ role: 'user', content: 'shrunk' }]);
    const logged = handle.log.events.find((event) => event.type === 'user/message');
    assert.equal((logged?.data as { text: string } | undefined)?.text, 'a long question');
  } finally {
    handle.close();
  }
});

test('an overflow is asked once more only when a handler can shrink the view, and sent again only when it did', async () => {
  const alone = refusingModel(1);
  const plain = agentFixture({ model: alone });
  try {
    const outcome = await plain.agent.prompt('hello');
    assert.equal(outcome.reason, 'error');
    assert.equal(alone.requests.length, 1);
  } finally {
    plain.close();
  }

  const once = refusingModel(1);
  const handled = agentFixture({ model: once });
  const reasons: ModelViewReason[] = [];
  handled.context.handle(modelView, (input, messages) => {
    reasons.push(input.reason);
    return input.reason === 'overflow' ? shrunk(messages) : messages;
  });
  try {
    const outcome = await handled.agent.prompt('hello');
    assert.equal(outcome.reason, 'completed', JSON.stringify(outcome));
    assert.deepEqual(reasons, ['request', 'overflow']);
    assert.equal(once.requests.length, 2);
    const retries = handled.log.events.filter((event) => event.type === 'model/retry');
    assert.equal(retries.length, 1);
    const message = handled.log.events.find((event) => event.type === 'assistant/message');
    assert.equal((message?.data as { attempts: number } | undefined)?.attempts, 2);
  } finally {
    handled.close();
  }

  const twice = refusingModel(2);
  const failing = agentFixture({ model: twice });
  failing.context.handle(modelView, (input, messages) =>
    input.reason === 'overflow' ? shrunk(messages) : messages,
  );
  try {
    const outcome = await failing.agent.prompt('hello');
    assert.equal(outcome.reason, 'error');
    assert.match(outcome.reason === 'error' ? outcome.error.message : '', /context length/);
    assert.equal(twice.requests.length, 2);
  } finally {
    failing.close();
  }

  const unchanged = refusingModel(1);
  const stuck = agentFixture({ model: unchanged });
  stuck.context.handle(modelView, (_input, messages) => messages);
  try {
    const outcome = await stuck.agent.prompt('hello');
    assert.equal(outcome.reason, 'error');
    assert.equal(
      unchanged.requests.length,
      1,
      'a view the handler could not shrink is not sent again',
    );
    assert.equal(stuck.log.events.filter((event) => event.type === 'model/retry').length, 0);
  } finally {
    stuck.close();
  }
});

/** The view with its first user message cut short: a stand-in for what compaction does. */
function shrunk(messages: ModelMessage[]): ModelMessage[] {
  return messages.map((message) =>
    message.role === 'user' ? { ...message, content: message.content.slice(0, 2) } : message,
  );
}
