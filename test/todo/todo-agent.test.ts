/**
 * `todo_write` as agents use it, through the tool pipeline over a scripted model: the short
 * result, a refused list naming the bad item and logging nothing, a child keeping its own list,
 * and a session opened again in a new runtime continuing from its last list.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { installTodos, todosOf } from '../../src/todo/install.js';
import { TODO_WRITE_TOOL } from '../../src/todo/tools.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { requestPrompts } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

type ResultData = SessionEvent<'tool/result'>['data'];

function todoRuntime(script: ScriptedModelFile, home = temporaryFolder('loom-todo-agent-')) {
  const model = createScriptedModel(script);
  const runtime = runtimeOver(model, home);
  const layer = installTodos(runtime, { maxItems: 3 });
  return { runtime, home, layer };
}

const writes = (todos: unknown[]) => ({
  steps: [
    { tools: [{ name: TODO_WRITE_TOOL, arguments: { todos } }] },
    { reply: '{{lastToolResult}}' },
  ],
});

const results = (events: readonly SessionEvent[]): ResultData[] =>
  events.flatMap((event) =>
    event.type === 'tool/result' ? [(event as SessionEvent<'tool/result'>).data] : [],
  );
const writeCount = (events: readonly SessionEvent[]) =>
  events.filter((event) => event.type === 'todo/write').length;

const plan = [
  { content: 'Read the code', status: 'completed' },
  { content: 'Write the fix', status: 'in_progress', activeForm: 'Writing the fix' },
  { content: 'Run the tests', status: 'pending' },
];

test('todo_write saves the list and tells the model so in a short result', async () => {
  const { runtime } = todoRuntime({ rules: [{ when: 'plan', ...writes(plan) }] });
  const handle = runtime.start();
  try {
    assert.equal((await handle.agent.prompt('plan it')).reason, 'completed');
    const [result] = results(handle.log.events);
    assert.equal(result?.isError, false);
    assert.equal(
      result?.content,
      'Todo list saved (3 items: 1 completed, 1 in progress, 1 pending).',
    );
    assert.deepEqual(todosOf(handle)?.todos, plan);
    const [request] = requestPrompts(handle.log.events);
    assert.ok(request);
    const offered = request.tools.find((tool) => tool.name === TODO_WRITE_TOOL);
    assert.match(offered?.description ?? '', /exactly one item in_progress/);
    assert.match(offered?.description ?? '', /completed as soon as it is really done/);
  } finally {
    handle.close();
  }
});

test('todo_write refuses a bad list naming the item, and the list stays as it was', async () => {
  const { runtime } = todoRuntime({
    rules: [
      { when: 'first', ...writes(plan) },
      {
        when: 'bad status',
        ...writes([
          { content: 'Deploy', status: 'pending' },
          { content: 'Run the tests', status: 'done' },
        ]),
      },
      { when: 'empty', ...writes([{ content: '', status: 'pending' }]) },
      { when: 'too many', ...writes([...plan, { content: 'One more', status: 'pending' }]) },
    ],
  });
  const handle = runtime.start();
  try {
    await handle.agent.prompt('first');
    for (const prompt of ['bad status', 'empty', 'too many']) await handle.agent.prompt(prompt);
    const [, badStatus, empty, tooMany] = results(handle.log.events);
    for (const result of [badStatus, empty, tooMany]) {
      assert.equal(result?.isError, true);
      assert.equal(result?.errorCode, 'TODO_INVALID');
    }
    assert.match(badStatus?.content ?? '', /todos\[1\] "Run the tests": unknown status "done"/);
    assert.match(empty?.content ?? '', /todos\[0\] \(empty content\): content must not be empty/);
    assert.match(tooMany?.content ?? '', /4 items; at most 3/);
    assert.equal(writeCount(handle.log.events), 1, 'only the valid list was logged');
    assert.deepEqual(todosOf(handle)?.todos, plan);
  } finally {
    handle.close();
  }
});

test('todo_write: a child keeps its own list, and the parent keeps its own', async () => {
  const { runtime } = todoRuntime({
    rules: [
      { when: 'parent', ...writes(plan) },
      { when: 'child', ...writes([{ content: 'Child step', status: 'in_progress' }]) },
    ],
  });
  const parent = runtime.start();
  const child = runtime.start({ parentSession: parent.log.header.sessionId, delegationDepth: 1 });
  try {
    await parent.agent.prompt('parent');
    await child.agent.prompt('child');
    assert.deepEqual(todosOf(parent)?.todos, plan);
    assert.deepEqual(todosOf(child)?.todos, [{ content: 'Child step', status: 'in_progress' }]);
    assert.equal(writeCount(parent.log.events), 1);
    assert.equal(writeCount(child.log.events), 1);
  } finally {
    child.close();
    parent.close();
  }
});

test('todo_write: a session opened in a new runtime continues from its last list', async () => {
  const done = plan.map((todo) => ({ content: todo.content, status: 'completed' }));
  const script = {
    rules: [
      { when: 'plan', ...writes(plan) },
      { when: 'finish', ...writes(done) },
    ],
  };
  const first = todoRuntime(script);
  const handle = first.runtime.start();
  const sessionId = handle.log.header.sessionId;
  await handle.agent.prompt('plan it');
  handle.close();
  first.layer.dispose();

  const second = todoRuntime(script, first.home);
  const reopened = second.runtime.resume(sessionId);
  try {
    assert.deepEqual(todosOf(reopened)?.todos, plan);
    await reopened.agent.prompt('finish it');
    assert.deepEqual(todosOf(reopened)?.todos, done);
  } finally {
    reopened.close();
  }
});

test('installTodos: the undo takes the tool and the service back from live agents', () => {
  const { runtime, layer } = todoRuntime({ default: { reply: 'ok' } });
  const handle = runtime.start();
  try {
    assert.ok(todosOf(handle));
    assert.ok(runtime.toolCatalog.entries().some((entry) => entry.name === TODO_WRITE_TOOL));
    layer.dispose();
    assert.equal(todosOf(handle), undefined);
    assert.ok(!runtime.toolCatalog.entries().some((entry) => entry.name === TODO_WRITE_TOOL));
  } finally {
    handle.close();
  }
});
