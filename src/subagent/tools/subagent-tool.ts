/**
 * The `subagent` tool: hands one task to a fresh child. In the foreground it returns the child's
 * final text (a failing child is an error result; the parent goes on); with `run_in_background`
 * the child's id comes back at once and its answer arrives later as a message. Several calls in
 * one step run concurrently and their results commit in model order.
 */
import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import type { ToolDefinition } from '../../core/tool-contract.js';
import { callerOf, type SubagentServices } from '../services.js';

const schema = z.strictObject({
  description: z
    .string()
    .min(1)
    .max(120)
    .describe('A short label for the task (3-8 words), shown in progress views.'),
  prompt: z
    .string()
    .min(1)
    .describe(
      'The complete task for the subagent. It has not seen this conversation: include every fact, path and constraint it needs, and say what to report back.',
    ),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      'Start the subagent and return its id at once; its answer arrives later as a message. Use send_message to give it more instructions.',
    ),
});

const description = [
  'Delegate a self-contained task to a subagent: a separate agent with the same tools and a fresh context.',
  'Use it for work that can be done independently (research, a focused change, a review) so that its',
  'intermediate steps stay out of this conversation. The subagent returns its final answer as text.',
  'Several subagent calls in one message run in parallel. Subagents can delegate further only up to',
  'the depth limit.',
].join(' ');

export function subagentTool(services: SubagentServices): ToolDefinition {
  return defineTool({
    name: 'subagent',
    description,
    schema,
    concurrencySafe: true,
    async execute(args, execution) {
      const caller = callerOf(services, execution.agentId);
      const background = args.run_in_background === true;
      const run = services.registry.start(services.defaultProvider, {
        parent: { sessionId: caller.sessionId, delegationDepth: caller.delegationDepth },
        prompt: args.prompt,
        description: args.description,
        ...(caller.maxDepth !== undefined ? { maxDepth: caller.maxDepth } : {}),
        ...(background ? { continuable: true } : { signal: execution.signal }),
      });
      if (background) {
        void run.result.catch(() => undefined);
        return `Started subagent ${run.id} (${args.description}) in the background. Its answer will arrive as a message; use send_message with subagent_id "${run.id}" to add instructions.`;
      }
      const result = await run.result;
      if (result.stopReason === 'completed') return result.output || '(the subagent gave no text)';
      const reason = result.diagnostic ?? result.stopReason;
      return {
        content: `The subagent ${run.id} did not complete (${result.stopReason}): ${reason}`,
        isError: true,
      };
    },
  });
}
