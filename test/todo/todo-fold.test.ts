/**
 * The todo list as the log folds it: the last write wins at every prefix, also once the session
 * is closed and opened again, a broken stored write is named and skipped, and the list checker
 * refuses bad lists naming each bad item by index and content.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionLog } from '../../src/core/session-log.js';
import type { TodoItem } from '../../src/todo/contract.js';
import { foldTodos } from '../../src/todo/fold.js';
import { checkTodoList, describeTodoCounts } from '../../src/todo/todo-list.js';
import { TodoService } from '../../src/todo/todo-service.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const first: TodoItem[] = [
  { content: 'Read the config', status: 'in_progress', activeForm: 'Reading the config' },
  { content: 'Run the tests', status: 'pending' },
];
const second: TodoItem[] = [
  { content: 'Read the config', status: 'completed' },
  { content: 'Run the tests', status: 'in_progress' },
  { content: 'Fix the failures', status: 'pending' },
];
const third: TodoItem[] = [{ content: 'Ship it', status: 'pending' }];

function refusal(value: unknown, maxItems?: number): string {
  try {
    checkTodoList(value, maxItems);
  } catch (error) {
    assert.equal((error as { code?: string }).code, 'TODO_INVALID');
    return (error as Error).message;
  }
  assert.fail(`accepted ${JSON.stringify(value)}`);
}

test('todo fold: the last write wins at every prefix of a log with several writes', (t) => {
  const log = SessionLog.create({ directory: temporaryFolder('loom-todo-fold-') });
  t.after(() => log.close());
  const service = new TodoService({ log });
  t.after(() => service.dispose());
  assert.deepEqual(service.todos, []);
  assert.equal(foldTodos(log.events).hasWrites, false);
  service.write(first);
  log.append('turn/start', { turnId: 'unrelated' });
  service.write(second);
  service.write(third);
  assert.deepEqual(service.todos, third);
  const writes = log.events.filter((event) => event.type === 'todo/write');
  assert.equal(writes.length, 3);
  const upTo = (seq: number) => foldTodos(log.events.filter((event) => event.seq <= seq)).todos;
  assert.deepEqual(upTo(writes[0]?.seq ?? 0), first);
  assert.deepEqual(upTo(writes[1]?.seq ?? 0), second);
  assert.deepEqual(upTo(writes[2]?.seq ?? 0), third);
  service.write([]);
  assert.deepEqual(service.todos, [], 'an empty list clears it');
  assert.equal(foldTodos(log.events).hasWrites, true);
});

test('todo fold: a reopened session has the last list written before it was closed', (t) => {
  const directory = temporaryFolder('loom-todo-reopen-');
  const log = SessionLog.create({ directory });
  const service = new TodoService({ log });
  service.write(first);
  service.write(second);
  service.dispose();
  log.close();
  const reopened = SessionLog.open(log.path);
  t.after(() => reopened.close());
  const again = new TodoService({ log: reopened });
  t.after(() => again.dispose());
  assert.deepEqual(again.todos, second);
  again.write(third);
  assert.deepEqual(again.todos, third);
  assert.deepEqual(foldTodos(reopened.events).todos, third);
});

test('todo fold: a broken stored write is skipped and named until a valid write replaces it', () => {
  const event = (seq: number, todos: unknown) => ({
    type: 'todo/write' as const,
    seq,
    time: 0,
    data: { todos } as { todos: TodoItem[] },
  });
  const fold = foldTodos([event(1, second), event(2, [{ content: '', status: 'done' }])]);
  assert.deepEqual(fold.todos, second);
  assert.match(fold.problem ?? '', /session event 2 \(todo\/write\) is not a valid list/);
  fold.apply(event(3, third));
  assert.deepEqual(fold.todos, third);
  assert.equal(fold.problem, undefined);
});

test('todo list: a bad list is refused naming each bad item by index and content', () => {
  const message = refusal([
    { content: 'Read the config', status: 'completed' },
    { content: 'Run the tests', status: 'done' },
    { content: '   ', status: 'pending' },
    { content: 'Fix it', status: 'in_progress', activeForm: '' },
    { content: 'Ship it', status: 'pending', priority: 'high' },
  ]);
  assert.match(
    message,
    /todos\[1\] "Run the tests": unknown status "done" \(use pending, in_progress, completed\)/,
  );
  assert.match(message, /todos\[2\] \(empty content\): content must not be empty/);
  assert.match(message, /todos\[3\] "Fix it": activeForm, when given, must be non-empty text/);
  assert.match(message, /todos\[4\] "Ship it": unknown field "priority"/);
  assert.doesNotMatch(message, /todos\[0\]/);
  assert.match(
    refusal([{ content: 'Only', status: 'pending' }, 'x']),
    /todos\[1\] \(no content\): is not an object/,
  );
  assert.match(refusal([{ content: 'No status' }]), /todos\[0\] "No status": no status/);
  assert.match(refusal({ todos: [] }), /todos must be a list/);
  assert.match(refusal([first[1], first[1], first[1]], 2), /3 items; at most 2 are allowed/);
});

test('todo list: several items in progress are allowed, and counts describe the list', () => {
  const busy: TodoItem[] = [
    { content: 'A', status: 'in_progress' },
    { content: 'B', status: 'in_progress' },
  ];
  assert.deepEqual(checkTodoList(busy), busy);
  assert.equal(describeTodoCounts(second), '3 items: 1 completed, 1 in progress, 1 pending');
  assert.equal(describeTodoCounts([]), 'empty');
});
