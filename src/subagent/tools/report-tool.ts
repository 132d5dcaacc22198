/**
 * The `report` tool, installed only in continuable children: sends output to the child's parent,
 * waking it (a follow-up) or quietly (joins the parent's next turn). The child itself is the
 * credential: the recipient is read from its persisted parent, never from the arguments.
 */
import { defineBuiltinTool } from '../../core/builtin-tool.js';
import type { ToolDefinition } from '../../core/tool-contract.js';
import { SubagentError } from '../contract.js';
import type { SubagentServices } from '../services.js';

export function reportTool(services: SubagentServices): ToolDefinition {
  return defineBuiltinTool({
    name: 'report',
    description:
      'Send a progress report or a result to the agent that started you, without ending your work. By default it wakes that agent; set wake to false to let it read the report with its next turn.',
    arguments: (zod) =>
      zod.strictObject({
        output: zod.string().min(1).describe('What to report.'),
        wake: zod.boolean().optional().describe('Wake the parent now (default true).'),
      }),
    execute(args, execution) {
      const self = services.runtime.find(execution.agentId);
      const parentSession = self?.log.header.parentSession;
      const parent = parentSession ? services.runtime.find(parentSession) : undefined;
      if (!parent)
        throw new SubagentError(
          'UNKNOWN_AGENT',
          'your parent agent is not active; the report was not delivered',
        );
      const text = `[report from subagent ${execution.agentId}]\n${args.output}`;
      if (args.wake === false) parent.agent.inject(text, { source: 'subagent' });
      else parent.agent.followup(text, { source: 'subagent' });
      return `Reported to ${parent.log.header.sessionId}.`;
    },
  });
}
