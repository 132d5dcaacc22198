/**
 * A todo list as a checklist: `[x]` completed (dimmed), `[>]` in progress in its activeForm
 * wording, `[ ]` pending; the same lines `loom run` prints. Shown live under the transcript
 * while a list has unfinished items, and in place of the `todo_write` call's arguments. Draws
 * only.
 */
import { Box, Text } from 'ink';
import { todoLine } from '../../cli/render-todos.js';
import type { TodoItem } from '../../todo/contract.js';
import { checkTodoList } from '../../todo/todo-list.js';
import { TODO_WRITE_TOOL } from '../../todo/tools.js';

export interface TodoChecklistProps {
  todos: readonly TodoItem[];
  /** Spaces before each line. */
  indent?: number;
}

export function TodoChecklist({ todos, indent = 0 }: TodoChecklistProps) {
  return (
    <Box flexDirection="column" marginLeft={indent}>
      {todos.map((todo, index) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity but their place
          key={index}
          wrap="truncate-end"
          dimColor={todo.status === 'completed'}
          color={todo.status === 'in_progress' ? 'yellow' : undefined}
          bold={todo.status === 'in_progress'}
        >
          {todoLine(todo)}
        </Text>
      ))}
    </Box>
  );
}

/** The list a `todo_write` call's arguments hold, or undefined when they are not a valid list. */
export function todosOfCall(name: string, args: unknown): TodoItem[] | undefined {
  if (name !== TODO_WRITE_TOOL || typeof args !== 'object' || args === null) return undefined;
  try {
    return checkTodoList((args as { todos?: unknown }).todos);
  } catch {
    return undefined;
  }
}

/** Whether the live checklist shows: the list has an item not yet completed. */
export function showsLiveTodos(todos: readonly TodoItem[]): boolean {
  return todos.some((todo) => todo.status !== 'completed');
}
