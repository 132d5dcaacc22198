/**
 * The todo list of one session: the fold of its log, kept current through `log.onAppend`, so
 * what it reports is always what a replay would give. `write` checks a whole list and appends
 * it as `todo/write`; a refused list appends nothing. It never changes a list in any other way.
 */
import { type Disposer, serviceKey } from '../core/context.js';
import type { SessionLog } from '../core/session-log.js';
import { DEFAULT_TODO_SETTINGS, type TodoItem, type TodoSettings } from './contract.js';
import { TodoFold } from './fold.js';
import { checkTodoList } from './todo-list.js';

export const todoServiceKey = serviceKey<TodoService>('todo/service');

export interface TodoServiceOptions {
  log: SessionLog;
  settings?: Partial<TodoSettings>;
}

export class TodoService {
  readonly settings: TodoSettings;
  private readonly log: SessionLog;
  private readonly fold = new TodoFold();
  private readonly stopFolding: Disposer;

  constructor(options: TodoServiceOptions) {
    this.log = options.log;
    this.settings = { ...DEFAULT_TODO_SETTINGS, ...options.settings };
    for (const event of options.log.events) this.fold.apply(event);
    this.stopFolding = options.log.onAppend((event) => this.fold.apply(event));
  }

  /** The current list, as the log has it. */
  get todos(): TodoItem[] {
    return this.fold.todos;
  }

  /** Why the log's latest write could not be read, if it could not. */
  get problem(): string | undefined {
    return this.fold.problem;
  }

  /** Replaces the whole list; throws `TODO_INVALID` naming each bad item, and logs nothing then. */
  write(value: unknown): TodoItem[] {
    const todos = checkTodoList(value, this.settings.maxItems);
    this.log.append('todo/write', { todos });
    return this.todos;
  }

  dispose(): void {
    this.stopFolding();
  }
}
