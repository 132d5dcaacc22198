/**
 * The model's `recall` tool: gives back the exact original text of a tool result that pruning
 * replaced by a stub, by the call id the stub cites, read from the agent's own session log. An
 * unknown id is a clear error result. It never reads another session's log.
 */
import { defineBuiltinTool } from '../core/builtin-tool.js';
import { serviceKey } from '../core/context.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import type { ContextTracker } from './context-tracker.js';

export const RECALL_TOOL = 'recall';

/** The calling agent's tracker, on its scope. */
export const contextTrackerKey = serviceKey<ContextTracker>('context/tracker');

const DESCRIPTION = [
  'Get back the full original text of an earlier tool result that was pruned from your context to save room.',
  'A pruned result reads `[result of TOOL pruned; recall "ID" for the full text]`: pass that ID.',
  'Recall only what you still need; a recalled result takes room again.',
].join(' ');

export function recallTool(): ToolDefinition {
  return defineBuiltinTool({
    name: RECALL_TOOL,
    deferral: 'rare',
    summary: 'Get back the full text of a pruned tool result.',
    description: DESCRIPTION,
    concurrencySafe: true,
    arguments: (zod) =>
      zod.strictObject({
        id: zod.string().describe('The call id the pruned result cites, e.g. "call_7".'),
      }),
    execute(args, execution) {
      return execution.context.get(contextTrackerKey).original(args.id);
    },
  });
}
