/**
 * Checks a todo list as the model sent it (or as a log holds it), describes one briefly, and
 * restates its open items after a compaction. A refusal names every bad item by its index and
 * its content, so the model can fix the list in one go; a list is accepted whole or not at all.
 * It never changes the value it checks.
 */
import { TODO_STATUSES, TodoError, type TodoItem, type TodoStatus } from './contract.js';

const CONTENT_PREVIEW = 60;

function preview(value: unknown): string {
  if (typeof value !== 'string') return '(no content)';
  const flat = value.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return '(empty content)';
  const short = flat.length > CONTENT_PREVIEW ? `${flat.slice(0, CONTENT_PREVIEW - 1)}…` : flat;
  return JSON.stringify(short);
}

const isStatus = (value: unknown): value is TodoStatus =>
  typeof value === 'string' && (TODO_STATUSES as readonly string[]).includes(value);

function problemsOf(item: unknown): string[] {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return ['is not an object with content and status'];
  }
  const { content, status, activeForm, ...rest } = item as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof content !== 'string') problems.push('content must be text');
  else if (content.trim().length === 0) problems.push('content must not be empty');
  if (!isStatus(status)) {
    const got = status === undefined ? 'no status' : `unknown status ${JSON.stringify(status)}`;
    problems.push(`${got} (use ${TODO_STATUSES.join(', ')})`);
  }
  if (activeForm !== undefined && (typeof activeForm !== 'string' || activeForm.trim() === '')) {
    problems.push('activeForm, when given, must be non-empty text');
  }
  for (const key of Object.keys(rest)) problems.push(`unknown field ${JSON.stringify(key)}`);
  return problems;
}

/**
 * The list `value` holds, copied, when every item is valid and there are at most `maxItems`;
 * otherwise throws `TODO_INVALID` naming each bad item. An empty list is valid (it clears).
 */
export function checkTodoList(value: unknown, maxItems = Number.POSITIVE_INFINITY): TodoItem[] {
  if (!Array.isArray(value)) throw new TodoError('TODO_INVALID', 'todos must be a list');
  if (value.length > maxItems) {
    throw new TodoError(
      'TODO_INVALID',
      `the list has ${value.length} items; at most ${maxItems} are allowed: merge small steps`,
    );
  }
  const problems: string[] = [];
  value.forEach((item, index) => {
    const found = problemsOf(item);
    if (found.length === 0) return;
    const content = (item as { content?: unknown } | null)?.content;
    problems.push(`todos[${index}] ${preview(content)}: ${found.join('; ')}`);
  });
  if (problems.length > 0) {
    throw new TodoError('TODO_INVALID', `the list was not saved: ${problems.join('. ')}`);
  }
  return (value as TodoItem[]).map(({ content, status, activeForm }) =>
    activeForm === undefined ? { content, status } : { content, status, activeForm },
  );
}

/** "4 items: 1 completed, 1 in progress, 2 pending", or "empty". */
export function describeTodoCounts(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'empty';
  const count = (status: TodoStatus) => todos.filter((todo) => todo.status === status).length;
  const items = `${todos.length} ${todos.length === 1 ? 'item' : 'items'}`;
  return `${items}: ${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending`;
}

/**
 * The open list restated after a compaction: pending and in-progress items in the model's order,
 * each with its status, and how many completed items were left out. Empty when nothing is open.
 */
export function todoStandingText(todos: readonly TodoItem[]): string {
  const open = todos.filter((todo) => todo.status !== 'completed');
  if (open.length === 0) return '';
  const lines = ['# Todos', ...open.map((todo) => `- [${todo.status}] ${todo.content}`)];
  const completed = todos.length - open.length;
  if (completed > 0) {
    lines.push(`(${completed} completed ${completed === 1 ? 'item' : 'items'} left out)`);
  }
  return lines.join('\n');
}
