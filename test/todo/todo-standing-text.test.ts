/**
 * The todo block restated after a compaction: open items in the model's order with their status,
 * the count of completed ones left out, and nothing at all when no item is open.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TodoItem } from '../../src/todo/contract.js';
import { todoStandingText } from '../../src/todo/todo-list.js';

test('the todo block lists the open items with their status and counts the completed ones left out', () => {
  const todos: TodoItem[] = [
    { content: 'Read the code', status: 'completed' },
    { content: 'Write the fix', status: 'in_progress', activeForm: 'Writing the fix' },
    { content: 'Update the notes', status: 'completed' },
    { content: 'Run the tests', status: 'pending' },
  ];
  assert.equal(
    todoStandingText(todos),
    '# Todos\n- [in_progress] Write the fix\n- [pending] Run the tests\n(2 completed items left out)',
  );
  assert.equal(
    todoStandingText(todos.slice(1, 2)),
    '# Todos\n- [in_progress] Write the fix',
    'no count when nothing completed was left out',
  );
  assert.equal(
    todoStandingText(todos.slice(0, 2)),
    '# Todos\n- [in_progress] Write the fix\n(1 completed item left out)',
  );
});

test('the todo block is empty for an empty list and for a list with every item completed', () => {
  assert.equal(todoStandingText([]), '');
  assert.equal(todoStandingText([{ content: 'Read the code', status: 'completed' }]), '');
});
