/**
 * The todo seam (layer 5): the agent's working list of steps, which it shows the user and keeps
 * current. Every `todo_write` replaces the whole list and is logged as one `todo/write` event, so
 * the current list is simply the last write in the log (no merging). Each session, root or
 * child, keeps its own list; nothing here is shared between sessions or kept outside the log.
 */
import { LoomError } from '../base/errors.js';

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  /** What to do, in the imperative ("Run the tests"). Never blank. */
  content: string;
  status: TodoStatus;
  /** The same step as it is being done ("Running the tests"); shown while in progress. */
  activeForm?: string;
}

export interface TodoWriteEvent {
  /** The whole list after the write, in the model's order. */
  todos: TodoItem[];
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'todo/write': TodoWriteEvent;
  }
}

export type TodoErrorCode = 'TODO_INVALID';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<TodoErrorCode, true> {}
}

export class TodoError extends LoomError<TodoErrorCode> {}

export interface TodoSettings {
  /** Items one list may hold; default 100 (`todo.maxItems`). */
  maxItems: number;
}

export const DEFAULT_TODO_SETTINGS: TodoSettings = { maxItems: 100 };
