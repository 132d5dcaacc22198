import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import { lockPathOf } from '../../src/core/session-lock.js';
import { SubagentError, type SubagentStartRequest } from '../../src/subagent/contract.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { requestPrompts } from '../helpers/session-files.js';
import { holdSession } from '../helpers/session-holder.js';
import { echoTool, eventsOf, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const model = { rules: [], default: { reply: 'ok: {{prompt}}' } };

const persona = 'You are Quill, a one-word assistant.';
const instructions = 'Answer in one word.';

const isCode = (code: string) => (error: unknown) =>
  error instanceof SubagentError && error.code === code;

/** First process: a root with one continuable child that has answered once, then shut down. */
async function firstProcess(): Promise<{ home: string; parentId: string; childId: string }> {
  const fixture = subagentFixture({ model, tools: [echoTool] });
  const run = fixture.services.registry.start('spawn', {
    parent: { sessionId: fixture.rootId, delegationDepth: 0 },
    prompt: 'first task',
    description: 'resumable',
    continuable: true,
    toolFilter: ['echo'],
    persona,
    instructions,
    effort: 'high',
  });
  assert.equal((await run.result).output, 'ok: first task');
  await fixture.services.children.whenSettled(fixture.root);
  await fixture.close();
  assert.equal(fixture.runtime.liveAgents.length, 0);
  return { home: fixture.home, parentId: fixture.rootId, childId: run.id };
}

test('after a restart, send_message from the parent cold-resumes the child from its file', async () => {
  const { home, parentId, childId } = await firstProcess();
  const second: SubagentFixture = subagentFixture({ model, tools: [echoTool], home });
  const { children } = second.services;
  assert.equal(second.runtime.find(childId), undefined);

  const summary = children.sendMessage({ sessionId: parentId }, childId, 'again');
  assert.deepEqual(summary, { id: childId, description: 'resumable', state: 'running' });
  const child = second.runtime.find(childId);
  assert.ok(child, 'the child is live again');
  await child.agent.whenIdle();

  const loaded = second.load(childId);
  assert.equal(loaded.header.parentSession, parentId);
  assert.equal(loaded.header.delegationDepth, 1);
  assert.deepEqual(
    eventsOf(loaded.events, 'turn/end').map((end) => end.reason),
    ['completed', 'completed'],
  );
  assert.equal(eventsOf(loaded.events, 'assistant/message').at(-1)?.text, 'ok: again');
  assert.deepEqual(checkSessionInvariants(loaded.events), []);

  const header = requestPrompts(loaded.events, join(second.home, 'sessions')).at(-1);
  const tools = header?.tools.map((tool) => tool.name) ?? [];
  assert.ok(!tools.includes('echo'), `the tool filter is re-applied: ${tools.join(', ')}`);
  assert.ok(tools.includes('report'), 'a continuable child has report again');
  assert.ok(header?.system.startsWith(persona), 'the persona is re-applied');
  assert.ok(header?.system.includes(instructions), 'the instructions are re-applied');

  const request = second.model.calls.find((item) => item.prompt === 'again');
  assert.equal(request?.effort, 'high', 'the effort is re-applied');
  assert.deepEqual(request?.messages, [
    { role: 'user', content: 'first task' },
    { role: 'assistant', text: 'ok: first task', toolCalls: [] },
    { role: 'user', content: 'again' },
  ]);
  assert.deepEqual(children.childrenOf(parentId), [
    { id: childId, description: 'resumable', state: 'idle', lastOutcome: 'completed' },
  ]);
  await second.close();
});

test('an unauthorised caller is refused before the child file is opened for append', async () => {
  const { home, parentId, childId } = await firstProcess();
  const second = subagentFixture({ model, home });
  const { children } = second.services;
  const path = second.runtime.store.pathOf(childId);
  const before = readFileSync(path);

  assert.throws(
    () => children.sendMessage({ sessionId: second.rootId }, childId, 'do my bidding'),
    (error: unknown) =>
      isCode('NOT_AUTHORIZED')(error) && (error as Error).message.includes(second.rootId),
  );
  assert.throws(
    () => children.interrupt({ sessionId: second.rootId }, childId),
    isCode('NOT_AUTHORIZED'),
  );
  assert.deepEqual(readFileSync(path), before, 'the file is unchanged');
  assert.equal(second.runtime.find(childId), undefined, 'the child was not resumed');

  // Nothing holds the file open: the real parent can still resume it.
  children.sendMessage({ sessionId: parentId }, childId, 'again');
  await second.runtime.find(childId)?.agent.whenIdle();
  assert.equal(eventsOf(second.load(childId).events, 'turn/end').length, 2);
  await second.close();
});

test('only continuable children can be messaged after a restart', async () => {
  const first = subagentFixture({ model });
  const oneShot = first.services.registry.start('spawn', {
    parent: { sessionId: first.rootId, delegationDepth: 0 },
    prompt: 'once',
  });
  await oneShot.result;
  await first.close();
  const second = subagentFixture({ model, home: first.home });
  assert.throws(
    () => second.services.children.sendMessage({ sessionId: first.rootId }, oneShot.id, 'again'),
    (error: unknown) =>
      isCode('UNKNOWN_AGENT')(error) && /not a continuable subagent/.test((error as Error).message),
  );
  assert.throws(
    () => second.services.children.sendMessage('user', 'no-such-session', 'hello'),
    isCode('UNKNOWN_AGENT'),
  );
  await second.close();
});

test('a released child is resumed from its file within the same process', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', {
    parent: { sessionId: fixture.rootId, delegationDepth: 0 },
    prompt: 'first task',
    continuable: true,
  });
  await run.result;
  await fixture.services.children.whenSettled(fixture.root);
  fixture.services.children.releaseUnder(fixture.rootId);
  assert.equal(fixture.runtime.find(run.id), undefined);
  assert.equal(fixture.services.children.childrenOf(fixture.rootId)[0]?.state, 'stopped');

  fixture.services.children.sendMessage({ sessionId: fixture.rootId }, run.id, 'again');
  await fixture.services.children.whenSettled(fixture.root);
  assert.equal(eventsOf(fixture.load(run.id).events, 'turn/end').length, 2);
  const notices = eventsOf(fixture.root.log.events, 'user/message');
  assert.match(notices.at(-1)?.text ?? '', /ok: again/);
  await fixture.close();
});

test('after a restart, list_agents shows the persisted children as stopped, by ids send_message accepts', async () => {
  const listModel = {
    rules: [
      { when: '^list$', steps: [{ tools: [{ name: 'list_agents' }] }, { reply: 'listed' }] },
      {
        when: '^tell (\\S+): (.*)$',
        steps: [
          {
            tools: [
              { name: 'send_message', arguments: { subagent_id: '{{1}}', message: '{{2}}' } },
            ],
          },
          { reply: 'sent' },
        ],
      },
    ],
    default: { reply: 'ok: {{prompt}}' },
  };
  const first = subagentFixture({ model: listModel });
  const { registry } = first.services;
  const parent = { sessionId: first.rootId, delegationDepth: 0 };
  /** Spawns a child and waits for its answer, one at a time so the order is known. */
  const answered = async (request: Omit<SubagentStartRequest, 'parent'>, from = parent) => {
    const run = registry.start('spawn', { parent: from, ...request });
    await run.result;
    return run;
  };
  const older = await answered({ prompt: 'older task', description: 'older', continuable: true });
  await answered({ prompt: 'one shot', description: 'once' });
  const newer = await answered({ prompt: 'newer task', description: 'newer', continuable: true });
  const stranger = { sessionId: first.runtime.start().log.header.sessionId, delegationDepth: 0 };
  await answered({ prompt: 'not yours', continuable: true }, stranger);
  await first.close();

  const second = subagentFixture({ model: listModel, home: first.home });
  const root = second.runtime.resume(first.rootId);
  await root.agent.prompt('list');
  // Two children made in the same millisecond may be listed in either order.
  const listing = () =>
    (eventsOf(root.log.events, 'tool/result').at(-1)?.content ?? '').split('\n').sort();
  assert.deepEqual(
    listing(),
    [
      `${older.id}  stopped (not running; send_message resumes it) (last turn: completed)  older`,
      `${newer.id}  stopped (not running; send_message resumes it) (last turn: completed)  newer`,
    ].sort(),
  );
  assert.equal(second.runtime.find(older.id), undefined, 'listing resumes nothing');

  await root.agent.prompt(`tell ${older.id}: again`);
  assert.match(listing()[0] ?? '', /^Message queued for subagent/);
  await second.services.children.whenSettled(root);
  await root.agent.prompt('list');
  assert.deepEqual(
    listing(),
    [
      `${older.id}  idle (last turn: completed)  older`,
      `${newer.id}  stopped (not running; send_message resumes it) (last turn: completed)  newer`,
    ].sort(),
  );
  assert.equal(eventsOf(second.load(older.id).events, 'turn/end').length, 2);
  await second.close();
});

test('a cold resume takes the child session’s writer lock: another writer makes it SESSION_BUSY', async () => {
  const { home, parentId, childId } = await firstProcess();
  const second = subagentFixture({ model, home });
  const { children } = second.services;
  const holder = await holdSession(second.runtime.store.pathOf(childId));
  try {
    assert.throws(
      () => children.sendMessage({ sessionId: parentId }, childId, 'again'),
      (error: unknown) =>
        error instanceof LoomError &&
        error.code === 'SESSION_BUSY' &&
        error.message.includes(`process ${holder.pid} is writing it`),
    );
    assert.equal(second.runtime.find(childId), undefined, 'the child was not resumed');
  } finally {
    assert.equal(await holder.finish(), 0);
  }
  children.sendMessage({ sessionId: parentId }, childId, 'again');
  const child = second.runtime.find(childId);
  assert.ok(child);
  assert.match(readFileSync(lockPathOf(child.log.path), 'utf8'), new RegExp(`^${process.pid}\\b`));
  await child.agent.whenIdle();
  assert.equal(eventsOf(second.load(childId).events, 'turn/end').length, 2);
  await second.close();
});
