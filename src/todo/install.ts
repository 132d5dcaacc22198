/**
 * Installs layer 5's todos into a runtime: every agent, root or child, gets its own todo service
 * folded from its own session, the `todo_write` tool, and its open items restated after a
 * compaction (`agent/standing-state`). Lists are never shared between sessions. The undo
 * removes the tool, the services and the handlers from every agent that has them.
 */
import type { Disposer } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { addStandingState } from '../core/standing-state.js';
import type { TodoSettings } from './contract.js';
import { todoStandingText } from './todo-list.js';
import { TodoService, todoServiceKey } from './todo-service.js';
import { todoTools } from './tools.js';

export interface TodoLayer {
  dispose: Disposer;
}

/** The todo service of an agent the layer set up. */
export function todosOf(handle: AgentHandle): TodoService | undefined {
  return handle.context.find(todoServiceKey);
}

export function installTodos(
  runtime: AgentRuntime,
  settings: Partial<TodoSettings> = {},
): TodoLayer {
  const dispose = runtime.installLayer(todoTools(), (handle) => {
    const service = new TodoService({ log: handle.log, settings });
    return [
      () => service.dispose(),
      handle.context.provide(todoServiceKey, service),
      addStandingState(handle.context, handle.agent.id, () => todoStandingText(service.todos)),
    ];
  });
  return { dispose };
}
