/**
 * Plain text of a todo list, as `loom run` and `loom sessions show` print it: one line an item,
 * `[x]` completed, `[>]` in progress (its activeForm when given), `[ ]` pending. Pure: it reads
 * lists and events and never writes anything itself.
 */
import { assertNever } from '../base/errors.js';
import type { SessionEvent } from '../core/session-events.js';
import type { TodoItem } from '../todo/contract.js';
import { foldTodos } from '../todo/fold.js';
import { checkTodoList } from '../todo/todo-list.js';

export function todoLine(todo: TodoItem): string {
  switch (todo.status) {
    case 'completed':
      return `[x] ${todo.content}`;
    case 'in_progress':
      return `[>] ${todo.activeForm ?? todo.content}`;
    case 'pending':
      return `[ ] ${todo.content}`;
    default:
      return assertNever(todo.status, 'todo status');
  }
}

/** The list's lines; an empty list is one line saying so. */
export function todoLines(todos: readonly TodoItem[]): string[] {
  return todos.length === 0 ? ['(todo list is empty)'] : todos.map(todoLine);
}

/**
 * For a stream of events: the lines to print for each `todo/write` whose list differs from the
 * previous write this printer saw; `undefined` for every other event and for an unchanged list.
 */
export function todoChangePrinter(): (event: SessionEvent) => string[] | undefined {
  let previous: string | undefined;
  return (event) => {
    if (event.type !== 'todo/write') return undefined;
    let todos: TodoItem[];
    try {
      todos = checkTodoList((event as SessionEvent<'todo/write'>).data.todos);
    } catch {
      return undefined;
    }
    const key = JSON.stringify(todos);
    if (key === previous) return undefined;
    previous = key;
    return todoLines(todos);
  };
}

/** The session's last todo list as `loom sessions show` ends with it; empty when it has none. */
export function todoSummary(events: readonly SessionEvent[]): string {
  const fold = foldTodos(events);
  const lines: string[] = [];
  if (fold.hasWrites) lines.push('todos:', ...todoLines(fold.todos).map((line) => `  ${line}`));
  if (fold.problem) lines.push(`todos: ${fold.problem}`);
  return lines.map((line) => `${line}\n`).join('');
}
