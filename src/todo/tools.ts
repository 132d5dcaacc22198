/**
 * The model's `todo_write` tool: it sends the whole list each time and the list replaces the
 * previous one. The description teaches when a list helps and how to keep it honest; the result
 * only confirms the save (the model already knows the list it sent). A bad list is refused whole,
 * naming each bad item.
 */
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { TODO_STATUSES } from './contract.js';
import { describeTodoCounts } from './todo-list.js';
import { todoServiceKey } from './todo-service.js';

export const TODO_WRITE_TOOL = 'todo_write';

const DESCRIPTION = [
  'Save your todo list for this task; the user sees it. Each call replaces the whole list: send every item with its status.',
  'Use it for work of three or more steps or several requests, written before you start; skip it for one simple step or a question.',
  'Keep exactly one item in_progress; mark each completed as soon as it is really done (failing tests or partial work stay in_progress).',
  'Add items you discover; remove ones that no longer apply.',
].join(' ');

export function todoTools(): ToolDefinition[] {
  const todoWrite = defineBuiltinTool({
    name: TODO_WRITE_TOOL,
    description: DESCRIPTION,
    arguments: (zod) =>
      zod.strictObject({
        todos: zod
          .array(
            zod.strictObject({
              content: zod.string().describe('The step in the imperative, e.g. "Run the tests".'),
              // A plain string, not an enum: the tool's own check names the item and its content.
              status: zod.string().describe(`One of: ${TODO_STATUSES.join(', ')}.`),
              activeForm: zod
                .string()
                .optional()
                .describe('The step as it is being done, e.g. "Running the tests".'),
            }),
          )
          .describe('The whole list, in order.'),
      }),
    execute(args, execution) {
      const saved = execution.context.get(todoServiceKey).write(args.todos);
      return `Todo list saved (${describeTodoCounts(saved)}).`;
    },
  });
  return [todoWrite];
}
