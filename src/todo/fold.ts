/**
 * Folds a session's events into its current todo list: the last valid `todo/write` wins, so
 * replaying any prefix of a log gives the list as it stood then. A stored write that is not a
 * valid list (a hand-edited log) is not taken: the list stays the previous one and `problem`
 * names the event until a later valid write replaces it. Folding never throws.
 */
import { errorMessage } from '../base/errors.js';
import type { SessionEvent } from '../core/session-events.js';
import type { TodoItem } from './contract.js';
import { checkTodoList } from './todo-list.js';

export class TodoFold {
  private current: TodoItem[] = [];
  private written = false;
  private invalid: string | undefined;

  /** The current list (a copy); empty before the first write. */
  get todos(): TodoItem[] {
    return this.current.map((todo) => ({ ...todo }));
  }

  /** Whether any valid write was folded (an empty list written is not "never written"). */
  get hasWrites(): boolean {
    return this.written;
  }

  /** Why the latest stored write was not taken, if it was not. */
  get problem(): string | undefined {
    return this.invalid;
  }

  /** Folds one event; events other than `todo/write` change nothing. */
  apply(event: SessionEvent): void {
    if (event.type !== 'todo/write') return;
    const { data } = event as SessionEvent<'todo/write'>;
    try {
      this.current = checkTodoList((data as { todos?: unknown } | null)?.todos);
      this.written = true;
      this.invalid = undefined;
    } catch (error) {
      this.invalid = `session event ${event.seq} (todo/write) is not a valid list: ${errorMessage(error)}`;
    }
  }
}

/** The fold of a whole log. */
export function foldTodos(events: readonly SessionEvent[]): TodoFold {
  const fold = new TodoFold();
  for (const event of events) fold.apply(event);
  return fold;
}
