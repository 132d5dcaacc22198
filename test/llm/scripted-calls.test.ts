import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ModelToolSpec } from '../../src/llm/contract.js';
import { createScriptedModel, type ScriptedModelClient } from '../../src/testing/index.js';
import { agentFixture } from '../core/agent-fixture.js';
import { echoTool } from '../helpers/echo-tool.js';
import { assistant, collect, request, user } from '../helpers/model-requests.js';

const echoSpec: ModelToolSpec = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object' },
};

const summary = (client: ScriptedModelClient) =>
  client.calls.map((call) => ({ rule: call.rule, step: call.step, prompt: call.prompt }));

describe('scripted model: calls', () => {
  test('records each request with its rule, step, system, messages and tools offered', async () => {
    const client = createScriptedModel({
      rules: [
        { when: 'audit', reply: 'clean' },
        {
          when: 'make',
          steps: [{ tools: [{ name: 'echo', arguments: { text: 'x' } }] }, { reply: 'made' }],
        },
      ],
      default: { reply: 'ok' },
    });
    const first = [user('make it')];
    await collect(client, request(first, { system: 'be brief', tools: [echoSpec] }));
    const second = [user('make it'), assistant(), assistant()];
    await collect(client, request(second));
    await collect(client, request([user('hello')]));
    await collect(client, request([user('audit me')]));
    assert.deepEqual(summary(client), [
      { rule: { kind: 'rule', index: 1, when: 'make' }, step: 0, prompt: 'make it' },
      { rule: { kind: 'rule', index: 1, when: 'make' }, step: 1, prompt: 'make it' },
      { rule: { kind: 'default' }, step: 0, prompt: 'hello' },
      { rule: { kind: 'rule', index: 0, when: 'audit' }, step: 0, prompt: 'audit me' },
    ]);
    assert.deepEqual(client.calls[0]?.tools, [echoSpec]);
    assert.deepEqual(client.calls[1]?.tools, []);
    assert.deepEqual(client.calls[1]?.messages, second);
    assert.equal(client.calls[0]?.system, 'be brief');
  });

  test('a step index past the last step records the repeating last step', async () => {
    const client = createScriptedModel({
      rules: [{ when: 'go', steps: [{ reply: 'one' }, { reply: 'again' }] }],
    });
    await collect(client, request([user('go'), assistant(), assistant(), assistant()]));
    assert.equal(client.calls[0]?.step, 1);
  });

  test('is recorded when stream() is called, as a copy of the request', async () => {
    const client = createScriptedModel({ rules: [{ when: '.*', reply: 'ok' }] });
    const messages = [user('first')];
    const parts = client.stream(request(messages));
    assert.equal(client.calls.length, 1, 'recorded before the stream is read');
    messages.push(user('changed later'));
    for await (const _part of parts) {
      // Read to the end: the copy must not change when the caller's array does.
    }
    assert.deepEqual(client.calls[0]?.messages, [user('first')]);
  });

  test('an unmatched prompt is recorded; a request aborted before it was sent is not', async () => {
    const client = createScriptedModel({ rules: [{ when: 'known', reply: 'ok' }] });
    const parts = await collect(client, request([user('stranger')]));
    assert.equal(parts.at(-1)?.type, 'error');
    const controller = new AbortController();
    controller.abort();
    await collect(client, request([user('known')], { signal: controller.signal }));
    assert.deepEqual(summary(client), [
      { rule: { kind: 'unmatched' }, step: 0, prompt: 'stranger' },
    ]);
    assert.deepEqual(client.unusedRules(), [{ index: 0, when: 'known' }]);
  });

  test('an agent turn shows in calls step by step, with the tool results it saw', async () => {
    const model = createScriptedModel(
      {
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
      { name: 'test' },
    );
    const handle = agentFixture({ model, tools: [echoTool] });
    await handle.agent.prompt('say hello');
    handle.close();
    assert.deepEqual(
      model.calls.map((call) => [call.step, call.tools.map((tool) => tool.name)]),
      [
        [0, ['echo']],
        [1, ['echo']],
      ],
    );
    const lastMessage = model.calls[1]?.messages.at(-1);
    assert.equal(lastMessage?.role === 'tool' && lastMessage.content, 'echo: hello');
    assert.deepEqual(model.unusedRules(), []);
  });
});

describe('scripted model: unusedRules()', () => {
  test('lists rules that never answered and steps of used rules that never did', async () => {
    const client = createScriptedModel({
      rules: [
        { when: 'audit', reply: 'clean' },
        { when: 'never', reply: 'unused' },
        { when: 'make', steps: [{ reply: 'one' }, { reply: 'two' }, { reply: 'three' }] },
        { when: 'twice', times: 1, reply: 'first' },
      ],
      default: { reply: 'fallback' },
    });
    assert.deepEqual(client.unusedRules(), [
      { index: 0, when: 'audit' },
      { index: 1, when: 'never' },
      { index: 2, when: 'make' },
      { index: 3, when: 'twice' },
    ]);
    await collect(client, request([user('audit')]));
    await collect(client, request([user('make'), assistant(), assistant()]));
    await collect(client, request([user('twice')]));
    assert.deepEqual(client.unusedRules(), [
      { index: 1, when: 'never' },
      { index: 2, when: 'make', step: 0 },
      { index: 2, when: 'make', step: 1 },
    ]);
    await collect(client, request([user('make')]));
    await collect(client, request([user('make'), assistant()]));
    assert.deepEqual(client.unusedRules(), [{ index: 1, when: 'never' }]);
  });

  test('a rule past its times that lets a later rule answer leaves the later one used', async () => {
    const client = createScriptedModel({
      rules: [
        { when: 'go', times: 1, reply: 'first' },
        { when: 'go', reply: 'after' },
      ],
    });
    await collect(client, request([user('go')]));
    assert.deepEqual(client.unusedRules(), [{ index: 1, when: 'go' }]);
    await collect(client, request([user('go')]));
    assert.deepEqual(client.unusedRules(), []);
    assert.deepEqual(
      client.calls.map((call) => call.rule),
      [
        { kind: 'rule', index: 0, when: 'go' },
        { kind: 'rule', index: 1, when: 'go' },
      ],
    );
  });
});

test('with recordCalls false the model keeps no requests but still reports unused rules', async () => {
  const client = createScriptedModel(
    {
      rules: [
        { when: 'hello', reply: 'hi' },
        { when: 'never', reply: 'no' },
      ],
    },
    { recordCalls: false },
  );
  const parts = await collect(client, request([user('hello there')]));
  assert.ok(parts.some((part) => part.type === 'text'));
  assert.deepEqual(client.calls, []);
  assert.deepEqual(client.unusedRules(), [{ index: 1, when: 'never' }]);
});
