import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { SubagentError, type SubagentStartRequest } from '../../src/subagent/contract.js';
import { DEFAULT_MAX_DEPTH } from '../../src/subagent/in-process-provider.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { requestPrompts } from '../helpers/session-files.js';
import { echoTool, eventsOf, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const model = {
  rules: [
    { when: 'fail me', error: 'upstream 500: overloaded' },
    {
      when: 'filtered task',
      steps: [
        { tools: [{ name: 'echo', arguments: { text: 'x' } }] },
        { reply: 'after: {{lastToolResult}}' },
      ],
    },
    {
      when: 'delegate further',
      steps: [
        { tools: [{ name: 'subagent', arguments: { description: 'deeper', prompt: 'leaf' } }] },
        { reply: 'up: {{lastToolResult}}' },
      ],
    },
    {
      when: 'count my tokens',
      steps: [
        { tools: [{ name: 'echo', arguments: { text: 'x' } }], usage: { input: 7, output: 3 } },
        { reply: 'counted', usage: { input: 11, output: 4 } },
      ],
    },
  ],
  default: { reply: 'ok: {{prompt}}' },
};

function fromDepth(
  fixture: SubagentFixture,
  delegationDepth: number,
  prompt: string,
): SubagentStartRequest {
  return { parent: { sessionId: fixture.rootId, delegationDepth }, prompt };
}

const isCode = (code: string) => (error: unknown) =>
  error instanceof SubagentError && error.code === code;

test('a spawned child is persisted with its parent and depth and returns its answer', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', {
    ...fromDepth(fixture, 0, 'summarise the repo'),
    description: 'summary',
  });
  const result = await run.result;
  assert.equal(result.output, 'ok: summarise the repo');
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.sessionId, run.id);
  assert.equal(result.diagnostic, undefined);
  assert.ok(result.usage.input > 0 && result.usage.output > 0, JSON.stringify(result.usage));
  assert.equal(
    fixture.runtime.find(run.id),
    undefined,
    'a one-shot child is closed after its turn',
  );

  const child = fixture.load(run.id);
  assert.equal(child.header.parentSession, fixture.rootId);
  assert.equal(child.header.delegationDepth, 1);
  assert.equal(child.header.seedLength, 0);
  assert.equal(child.events[0]?.type, 'subagent/descriptor');
  assert.deepEqual(child.events[0]?.data, {
    provider: 'spawn',
    description: 'summary',
    continuable: false,
  });
  assert.deepEqual(
    eventsOf(child.events, 'user/message').map((message) => message.text),
    ['summarise the repo'],
  );
  assert.deepEqual(checkSessionInvariants(child.events), []);
  await fixture.close();
});

test('a failing child settles as error with a diagnostic; the result does not reject', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', fromDepth(fixture, 0, 'fail me'));
  const result = await run.result;
  assert.equal(result.stopReason, 'error');
  assert.match(result.diagnostic ?? '', /upstream 500: overloaded/);
  assert.equal(result.sessionId, run.id);
  const turnEnd = eventsOf(fixture.load(run.id).events, 'turn/end')[0];
  assert.equal(turnEnd?.reason, 'error');
  await fixture.close();
});

test(`the default depth limit is ${DEFAULT_MAX_DEPTH}: depth 3 starts, depth 4 is DEPTH_LIMIT`, async () => {
  const fixture = subagentFixture({ model });
  const { registry } = fixture.services;
  assert.equal(DEFAULT_MAX_DEPTH, 3);
  const deepest = registry.start('spawn', fromDepth(fixture, 2, 'at depth three'));
  assert.equal((await deepest.result).stopReason, 'completed');
  assert.equal(fixture.load(deepest.id).header.delegationDepth, 3);

  const files = fixture.sessionFiles();
  const startsBefore = fixture.starts.length;
  assert.throws(
    () => registry.start('spawn', fromDepth(fixture, 3, 'at depth four')),
    (error: unknown) =>
      isCode('DEPTH_LIMIT')(error) && /depth limit of 3/.test((error as Error).message),
  );
  assert.deepEqual(fixture.sessionFiles(), files, 'no session was created');
  assert.equal(fixture.starts.length, startsBefore, 'no subagent/start');
  await fixture.close();
});

test('a request maxDepth of 0 forbids delegation', async () => {
  const fixture = subagentFixture({ model });
  assert.throws(
    () => fixture.services.registry.start('spawn', { ...fromDepth(fixture, 0, 'x'), maxDepth: 0 }),
    (error: unknown) =>
      isCode('DEPTH_LIMIT')(error) && /delegation is turned off/.test((error as Error).message),
  );
  await fixture.close();
});

test('a layer maxDepth of 0 forbids delegation, also through the subagent tool', async () => {
  const fixture = subagentFixture({
    model: {
      rules: [
        {
          when: 'delegate',
          steps: [
            { tools: [{ name: 'subagent', arguments: { description: 'd', prompt: 'child' } }] },
            { reply: 'parent saw: {{lastToolResult}}' },
          ],
        },
      ],
    },
    layer: { maxDepth: 0 },
  });
  assert.throws(
    () => fixture.services.registry.start('spawn', fromDepth(fixture, 0, 'x')),
    isCode('DEPTH_LIMIT'),
  );
  const outcome = await fixture.root.agent.prompt('delegate');
  assert.equal(outcome.reason, 'completed');
  const [result] = eventsOf(fixture.root.log.events, 'tool/result');
  assert.equal(result?.isError, true);
  assert.equal(result?.errorCode, 'DEPTH_LIMIT');
  assert.match(outcome.text, /parent saw: delegation is turned off/);
  assert.deepEqual(fixture.sessionFiles(), [`${fixture.rootId}.jsonl`]);
  await fixture.close();
});

test("a child's maxDepth is inherited by its own subagent calls", async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', {
    ...fromDepth(fixture, 0, 'delegate further'),
    maxDepth: 1,
  });
  const result = await run.result;
  assert.equal(result.stopReason, 'completed');
  assert.match(result.output, /^up: .*depth limit of 1 is reached/);
  const [toolResult] = eventsOf(fixture.load(run.id).events, 'tool/result');
  assert.equal(toolResult?.errorCode, 'DEPTH_LIMIT');
  assert.equal(fixture.starts.length, 1, 'the grandchild never started');
  await fixture.close();
});

test('toolFilter hides a tool from the child and a call to it is UNKNOWN_TOOL', async () => {
  const fixture = subagentFixture({ model, tools: [echoTool] });
  const run = fixture.services.registry.start('spawn', {
    ...fromDepth(fixture, 0, 'filtered task'),
    toolFilter: ['echo'],
  });
  const result = await run.result;
  assert.equal(result.stopReason, 'completed');
  assert.match(result.output, /^after: Unknown tool "echo"/);

  const events = fixture.load(run.id).events;
  const headers = requestPrompts(events, join(fixture.home, 'sessions'));
  assert.equal(headers.length, 2);
  for (const header of headers) {
    const names = header.tools.map((tool) => tool.name);
    assert.ok(!names.includes('echo'), `echo is hidden: ${names.join(', ')}`);
    assert.ok(names.includes('subagent'));
  }
  const [call] = eventsOf(events, 'tool/result');
  assert.equal(call?.name, 'echo');
  assert.equal(call?.errorCode, 'UNKNOWN_TOOL');
  assert.doesNotMatch(call?.content ?? '', /Available tools: .*\becho\b/);
  assert.ok(fixture.root.tools.lookup('echo'), "the parent's echo is untouched");
  await fixture.close();
});

test("persona replaces only the child's persona section", async () => {
  const fixture = subagentFixture({ model });
  const persona = 'You are Quill, a terse reviewer.';
  const run = fixture.services.registry.start('spawn', {
    ...fromDepth(fixture, 0, 'review this'),
    persona,
  });
  await run.result;
  await fixture.root.agent.prompt('hello root');

  const [childHeader] = requestPrompts(fixture.load(run.id).events, join(fixture.home, 'sessions'));
  assert.ok(childHeader?.system.startsWith(persona), childHeader?.system);
  assert.doesNotMatch(childHeader?.system ?? '', /You are Loom/);
  assert.match(childHeader?.system ?? '', /Working directory: /, 'other sections stay');

  const [rootHeader] = requestPrompts(fixture.root.log.events);
  assert.match(rootHeader?.system ?? '', /^You are Loom/);
  assert.doesNotMatch(rootHeader?.system ?? '', /Quill/);
  await fixture.close();
});

test('instructions become a section of the child only, recorded in its request and not again in a one-shot descriptor', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', {
    ...fromDepth(fixture, 0, 'x'),
    instructions: 'Answer in one word.',
  });
  await run.result;
  const { events } = fixture.load(run.id);
  const [header] = requestPrompts(events, join(fixture.home, 'sessions'));
  assert.match(header?.system ?? '', /Answer in one word\./);
  assert.match(header?.system ?? '', /^You are Loom/);
  const [descriptor] = eventsOf(events, 'subagent/descriptor');
  assert.equal(descriptor?.continuable, false);
  assert.equal(descriptor?.instructions, undefined, 'the stored prompt holds them once');
  await fixture.close();
});

test('onUsage hears each model request of the child as it finishes, with its model', async () => {
  const fixture = subagentFixture({ model, tools: [echoTool] });
  const reports: Array<{ usage: unknown; model: string; ended: boolean }> = [];
  let ended = false;
  const run = fixture.services.registry.start('spawn', {
    ...fromDepth(fixture, 0, 'count my tokens'),
    onUsage: (report) => reports.push({ ...report, ended }),
  });
  const result = await run.result;
  ended = true;
  assert.equal(result.output, 'counted');
  const messages = eventsOf(fixture.load(run.id).events, 'assistant/message');
  assert.deepEqual(
    reports,
    messages.map((message) => ({ usage: message.usage, model: message.model, ended: false })),
  );
  assert.deepEqual(
    reports.map((report) => report.usage),
    [
      { input: 7, output: 3 },
      { input: 11, output: 4 },
    ],
  );
  assert.match(reports[0]?.model ?? '', /^scripted:/);
  assert.deepEqual(result.usage, { input: 18, output: 7 });
  await fixture.close();
});

test('onActivity hears each request, each streamed delta and each complete answer, in order', async () => {
  const fixture = subagentFixture({ model, tools: [echoTool] });
  const { registry } = fixture.services;
  assert.deepEqual(
    ['spawn', 'fork', 'acp'].map((name) => registry.get(name).capabilities.activity),
    [true, true, false],
  );
  const heard: string[] = [];
  const run = registry.start('spawn', {
    ...fromDepth(fixture, 0, 'count my tokens'),
    onActivity: (activity) => heard.push(activity),
  });
  assert.equal((await run.result).output, 'counted');
  const expected = fixture
    .load(run.id)
    .events.flatMap((event) =>
      event.type === 'request/header'
        ? ['request']
        : event.type === 'assistant/chunk'
          ? ['output']
          : event.type === 'assistant/message'
            ? ['answered']
            : [],
    );
  assert.deepEqual(heard, expected);
  // A tool step, then a text answer streamed in deltas.
  assert.deepEqual(heard.slice(0, 3), ['request', 'answered', 'request']);
  assert.ok(heard.filter((activity) => activity === 'output').length >= 1);
  assert.equal(heard.at(-1), 'answered');
  await fixture.close();
});
