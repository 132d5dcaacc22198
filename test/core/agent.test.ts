import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentTurnStopping } from '../../src/core/agent-hooks.js';
import { deriveMessages } from '../../src/core/messages.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import type { ModelClient, ModelStreamPart } from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { echoTool } from '../helpers/echo-tool.js';
import { requestPrompts, toolResults } from '../helpers/session-files.js';
import { agentFixture, deferred } from './agent-fixture.js';

const types = (events: readonly SessionEvent[]) => events.map((event) => event.type);

test('a tool-using turn logs every step in order and ends completed', async () => {
  const handle = agentFixture({
    model: {
      rules: [
        {
          when: 'say (\\w+)',
          steps: [
            { tools: [{ name: 'echo', arguments: { text: '{{1}}' } }] },
            { reply: 'done: {{lastToolResult}}' },
          ],
        },
      ],
    },
    tools: [echoTool],
  });
  const outcome = await handle.agent.prompt('say hello');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.text, 'done: echo: hello');
  assert.equal(outcome.steps, 2);
  const events = handle.log.events;
  assert.deepEqual(checkSessionInvariants(events), []);
  const kinds = types(events).filter((type) => type !== 'assistant/chunk');
  assert.deepEqual(kinds, [
    'turn/start',
    'user/message',
    'step/start',
    'prompt/blob',
    'request/header',
    'assistant/message',
    'tool/call',
    'tool/result',
    'step/end',
    'step/start',
    'request/header',
    'assistant/message',
    'step/end',
    'turn/end',
  ]);
  const [first, second] = requestPrompts(events);
  assert.ok(first && second);
  assert.equal(first.header.model, 'scripted:test');
  assert.deepEqual(
    first.tools.map((tool) => tool.name),
    ['echo'],
  );
  assert.match(first.system, /You are Loom/);
  assert.deepEqual(second, { ...first, header: second.header }, 'the second step reuses the blob');
});

test('the messages a model saw are rebuilt from the session file alone', async () => {
  const model = createScriptedModel({
    rules: [
      {
        when: 'go',
        steps: [{ tools: [{ name: 'echo', arguments: { text: 'x' } }] }, { reply: 'ok' }],
      },
    ],
  });
  const handle = agentFixture({ model, tools: [echoTool] });
  await handle.agent.prompt('go');
  await handle.agent.prompt('go again');
  handle.close();
  const loaded = loadSessionFile(handle.log.path);
  const last = model.calls.at(-1);
  assert.ok(last);
  const upToLastRequest = loaded.events.slice(
    0,
    loaded.events.findLastIndex((event) => event.type === 'request/header') + 1,
  );
  assert.deepEqual(deriveMessages(upToLastRequest), last.messages);
});

test('the step limit ends a turn with an error that says so', async () => {
  const handle = agentFixture({
    model: { rules: [{ when: 'loop', tools: [{ name: 'echo', arguments: { text: 'again' } }] }] },
    tools: [echoTool],
    limits: { maxSteps: 3 },
  });
  const outcome = await handle.agent.prompt('loop');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.error?.code, 'STEP_LIMIT');
  assert.match(outcome.error?.message ?? '', /step limit of 3/);
  assert.equal(outcome.steps, 3);
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('a provider error ends the turn as error with the provider message', async () => {
  const handle = agentFixture({ model: { rules: [{ when: '.*', error: 'upstream 500' }] } });
  const outcome = await handle.agent.prompt('anything');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.match(outcome.error?.message ?? '', /upstream 500/);
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('cancel mid-stream closes the turn as aborted with every start ended', async () => {
  const handle = agentFixture({ model: { rules: [{ when: 'stuck', hang: true }] } });
  const requested = deferred();
  handle.log.onAppend((event) => {
    if (event.type === 'request/header') requested.resolve();
  });
  const result = handle.agent.prompt('stuck');
  await requested.promise;
  handle.agent.cancel('stop');
  const outcome = await result;
  handle.close();
  assert.equal(outcome.reason, 'aborted');
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
  assert.equal(handle.log.events.at(-1)?.type, 'turn/end');
  assert.equal(handle.agent.status, 'idle');
});

test('cancel mid-tool aborts the tool and logs its result before the turn ends', async () => {
  const started = deferred();
  const waiting: ToolDefinition = {
    name: 'wait',
    description: 'Waits until aborted.',
    parameters: { type: 'object', properties: {} },
    execute: (_args, execution) =>
      new Promise((_resolve, reject) => {
        started.resolve();
        execution.signal.addEventListener('abort', () => reject(new Error('tool aborted')));
      }),
  };
  const handle = agentFixture({
    model: { rules: [{ when: 'wait', tools: [{ name: 'wait', arguments: {} }] }] },
    tools: [waiting],
  });
  const result = handle.agent.prompt('wait');
  await started.promise;
  handle.agent.cancel();
  const outcome = await result;
  handle.close();
  assert.equal(outcome.reason, 'aborted');
  const [toolResult] = toolResults(handle.log.events);
  assert.equal(toolResult?.isError, true);
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('concludeTurn ends the turn after the current step without asking the model again', async () => {
  const finishing: ToolDefinition = {
    name: 'finish',
    description: 'Ends the turn.',
    parameters: { type: 'object', properties: {} },
    execute: (_args, execution) => {
      execution.concludeTurn();
      return 'finished';
    },
  };
  const model = createScriptedModel({
    rules: [{ when: '.*', tools: [{ name: 'finish', arguments: {} }] }],
  });
  const handle = agentFixture({ model, tools: [finishing] });
  const outcome = await handle.agent.prompt('finish now');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  assert.equal(model.calls.length, 1);
  assert.equal(outcome.steps, 1);
});

test('agent/turn-stopping may change how a turn ends before turn/end is logged', async () => {
  const handle = agentFixture({ model: { rules: [{ when: '.*', reply: 'plain answer' }] } });
  handle.context.handle(agentTurnStopping, (_input, value) =>
    value.reason === 'completed'
      ? { reason: 'error' as const, error: { code: 'NO_STRUCTURED_OUTPUT', message: 'no value' } }
      : value,
  );
  const outcome = await handle.agent.prompt('answer');
  handle.close();
  assert.equal(outcome.reason, 'error');
  const end = handle.log.events.at(-1) as SessionEvent<'turn/end'>;
  assert.equal(end.data.reason, 'error');
  assert.equal(end.data.error?.code, 'NO_STRUCTURED_OUTPUT');
});

test('followup, steer and inject deliver messages as documented', async () => {
  const release = deferred();
  const gate: ToolDefinition = {
    name: 'gate',
    description: 'Waits for the test.',
    parameters: { type: 'object', properties: {} },
    execute: async () => {
      await release.promise;
      return 'opened';
    },
  };
  const gateCalled = deferred();
  const handle = agentFixture({
    model: {
      rules: [
        {
          when: '^first$',
          steps: [{ tools: [{ name: 'gate', arguments: {} }] }, { reply: 'first done' }],
        },
        { when: '.*', reply: 'heard: {{prompt}}' },
      ],
    },
    tools: [gate],
  });
  handle.log.onAppend((event) => {
    if (event.type === 'tool/call') gateCalled.resolve();
  });
  const first = handle.agent.prompt('first');
  await gateCalled.promise;
  assert.equal(handle.agent.status, 'running');
  handle.agent.steer('mid-turn note');
  handle.agent.inject('quiet context');
  handle.agent.followup('second');
  release.resolve();
  const outcome = await first;
  await handle.agent.whenIdle();
  handle.close();
  assert.equal(outcome.reason, 'completed');
  const messages = handle.log.events
    .filter((event) => event.type === 'user/message')
    .map((event) => {
      const data = (event as SessionEvent<'user/message'>).data;
      return `${data.delivery}:${data.text}`;
    });
  assert.deepEqual(messages, [
    'followup:first',
    'steer:mid-turn note',
    'inject:quiet context',
    'followup:second',
  ]);
  const turnEnds = handle.log.events.filter((event) => event.type === 'turn/end');
  assert.equal(turnEnds.length, 2);
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('cancel with keepInbox keeps queued follow-ups; without it they are dropped', async () => {
  const handle = agentFixture({
    model: {
      rules: [
        { when: 'stuck', hang: true },
        { when: '.*', reply: 'ran {{prompt}}' },
      ],
    },
  });
  const requested = deferred();
  handle.log.onAppend((event) => {
    if (event.type === 'request/header') requested.resolve();
  });
  const stuck = handle.agent.prompt('stuck');
  await requested.promise;
  const kept = handle.agent.prompt('kept');
  handle.agent.cancel('interrupt', { keepInbox: true });
  assert.equal((await stuck).reason, 'aborted');
  assert.equal((await kept).text, 'ran kept');
  handle.close();
});

test('a model stream that ends without finishing is an error, not a hang', async () => {
  const broken: ModelClient = {
    id: 'broken',
    async *stream(): AsyncIterable<ModelStreamPart> {
      yield { type: 'text', text: 'partial' };
    },
  };
  const handle = agentFixture({ model: broken });
  const outcome = await handle.agent.prompt('hi');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.match(outcome.error?.message ?? '', /without finishing/);
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});
