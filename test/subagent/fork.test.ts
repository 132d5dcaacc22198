import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import type { SubagentResult } from '../../src/subagent/contract.js';
import { completedTurnPrefix } from '../../src/subagent/fork-seed.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { requestPrompts } from '../helpers/session-files.js';
import { eventsOf, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const model = {
  rules: [
    { when: 'first question', reply: 'first answer' },
    {
      when: 'please fork',
      steps: [{ tools: [{ name: 'fork_now' }] }, { reply: 'parent done: {{lastToolResult}}' }],
    },
    { when: 'forked task', reply: 'fork answer' },
  ],
};

/** A tool that forks its caller through the registry, from inside the caller's running turn. */
function forkTool(fixture: () => SubagentFixture, results: SubagentResult[]): ToolDefinition {
  return {
    name: 'fork_now',
    description: 'Forks the calling agent.',
    parameters: { type: 'object', properties: {} },
    async execute(_args, execution) {
      const run = fixture().services.registry.start('fork', {
        parent: { sessionId: execution.agentId, delegationDepth: 0 },
        prompt: 'forked task',
        description: 'fork',
      });
      const result = await run.result;
      results.push(result);
      return result.output;
    },
  };
}

const shape = (event: SessionEvent) => ({ type: event.type, data: event.data });

test("a fork started inside a running turn is seeded with the parent's completed turns only", async () => {
  const results: SubagentResult[] = [];
  const fixture: SubagentFixture = subagentFixture({
    model,
    tools: [forkTool(() => fixture, results)],
  });
  const { root } = fixture;
  await root.agent.prompt('first question');
  const firstTurn = [...root.log.events];
  const outcome = await root.agent.prompt('please fork');
  assert.equal(outcome.text, 'parent done: fork answer');
  const [result] = results;
  assert.ok(result);
  assert.equal(result.stopReason, 'completed');

  const child = fixture.load(result.sessionId);
  assert.equal(child.header.parentSession, fixture.rootId);
  assert.equal(child.header.delegationDepth, 1);
  assert.equal(child.header.seedLength, firstTurn.length);
  const seed = child.events.slice(0, child.header.seedLength);
  assert.deepEqual(seed.map(shape), firstTurn.map(shape));
  assert.deepEqual(
    seed.map((event) => event.seq),
    firstTurn.map((_event, index) => index + 1),
  );

  const own = child.events.slice(child.header.seedLength);
  assert.equal(own[0]?.type, 'subagent/descriptor');
  assert.equal((own[0]?.data as { provider?: string } | undefined)?.provider, 'fork');
  const texts = eventsOf(child.events, 'user/message').map((message) => message.text);
  assert.deepEqual(texts, ['first question', 'forked task']);
  assert.ok(
    !child.events.some((event) => event.type === 'tool/call'),
    "nothing of the parent's running turn was copied",
  );
  assert.deepEqual(checkSessionInvariants(child.events), []);
  assert.deepEqual(
    requestPrompts(seed),
    requestPrompts(firstTurn),
    "the seed holds the blobs of the parent's requests it copies",
  );

  const childRequest = fixture.model.calls.find((request) => request.prompt === 'forked task');
  assert.deepEqual(childRequest?.messages, [
    { role: 'user', content: 'first question' },
    { role: 'assistant', text: 'first answer', toolCalls: [] },
    { role: 'user', content: 'forked task' },
  ]);
  await fixture.close();
});

test('a fork of a parent with no completed turn starts empty', async () => {
  const results: SubagentResult[] = [];
  const fixture: SubagentFixture = subagentFixture({
    model,
    tools: [forkTool(() => fixture, results)],
  });
  await fixture.root.agent.prompt('please fork');
  const child = fixture.load(results[0]?.sessionId ?? '');
  assert.equal(child.header.seedLength, 0);
  assert.deepEqual(
    eventsOf(child.events, 'user/message').map((message) => message.text),
    ['forked task'],
  );
  await fixture.close();
});

test("a fork of a fork does not copy its parent's descriptor", async () => {
  const fixture = subagentFixture({ model: { rules: [], default: { reply: 'ok: {{prompt}}' } } });
  const { registry } = fixture.services;
  await fixture.root.agent.prompt('root turn');
  const first = registry.start('fork', {
    parent: { sessionId: fixture.rootId, delegationDepth: 0 },
    prompt: 'first fork',
    continuable: true,
  });
  await first.result;
  const second = registry.start('fork', {
    parent: { sessionId: first.id, delegationDepth: 1 },
    prompt: 'second fork',
  });
  await second.result;
  const loaded = fixture.load(second.id);
  const descriptors = loaded.events.filter((event) => event.type === 'subagent/descriptor');
  assert.equal(descriptors.length, 1);
  assert.equal(loaded.header.delegationDepth, 2);
  assert.deepEqual(
    eventsOf(loaded.events, 'user/message').map((message) => message.text),
    ['root turn', 'first fork', 'second fork'],
  );
  await fixture.close();
});

test('completedTurnPrefix stops at the last balanced turn/end', () => {
  const event = (seq: number, type: string): SessionEvent =>
    ({ type, seq, time: 0, data: {} }) as SessionEvent;
  const events = [
    event(1, 'turn/start'),
    event(2, 'user/message'),
    event(3, 'turn/end'),
    event(4, 'turn/start'),
    event(5, 'user/message'),
  ];
  assert.deepEqual(
    completedTurnPrefix(events).map((item) => item.seq),
    [1, 2, 3],
  );
  assert.deepEqual(completedTurnPrefix([]), []);
});
