/**
 * Tools a parent uses on its continuable children: `send_message` (queue into a running child or
 * cold-resume a settled one), `interrupt_agent` (stop the current turn, keep queued messages) and
 * `list_agents` (also the children earlier processes left on disk). Only the direct parent may
 * message or interrupt a child; anyone else is refused.
 */
import { defineBuiltinTool } from '../../core/builtin-tool.js';
import type { ToolDefinition } from '../../core/tool-contract.js';
import type { ChildSummary } from '../children.js';
import type { SubagentServices } from '../services.js';

export function sendMessageTool(services: SubagentServices): ToolDefinition {
  return defineBuiltinTool({
    name: 'send_message',
    deferral: 'rare',
    summary: 'Message one of your background subagents.',
    description:
      'Send a message to one of your background subagents. A running subagent reads it at its next turn; a finished one is woken (resumed from its saved session if needed) and answers as a new message to you.',
    arguments: (zod) =>
      zod.strictObject({
        subagent_id: zod.string().min(1).describe('The id returned when the subagent was started.'),
        message: zod.string().min(1).describe('What to tell the subagent.'),
      }),
    execute(args, execution) {
      const child = services.children.sendMessage(
        { sessionId: execution.agentId },
        args.subagent_id,
        args.message,
      );
      return `Message queued for subagent ${child.id} (${child.state}).`;
    },
  });
}

export function interruptAgentTool(services: SubagentServices): ToolDefinition {
  return defineBuiltinTool({
    name: 'interrupt_agent',
    deferral: 'rare',
    summary: "Stop a background subagent's current turn.",
    description:
      "Stop a background subagent's current turn. Messages already queued for it are kept; it does not stop for good and can be messaged again.",
    arguments: (zod) =>
      zod.strictObject({
        agent_id: zod.string().min(1).describe('The id of the subagent to interrupt.'),
      }),
    execute(args, execution) {
      const state = services.children.interrupt({ sessionId: execution.agentId }, args.agent_id);
      return `Interrupt sent to ${args.agent_id} (it was ${state}).`;
    },
  });
}

export function listAgentsTool(services: SubagentServices): ToolDefinition {
  return defineBuiltinTool({
    name: 'list_agents',
    deferral: 'rare',
    summary: 'List your background subagents and their state.',
    description:
      'List your background subagents, also those started before this session was resumed, with their state (running; idle; stopped: not running, but send_message resumes it) and last outcome.',
    arguments: (zod) => zod.strictObject({}),
    concurrencySafe: true,
    execute(_args, execution) {
      const children = services.children.childrenOf(execution.agentId);
      if (children.length === 0) return 'You have no background subagents.';
      return children.map(listingLine).join('\n');
    },
  });
}

/** `<id>  <state>[ (last turn: <reason>)]  <description>`; a stopped child says how to wake it. */
function listingLine(child: ChildSummary): string {
  const state =
    child.state === 'stopped' ? 'stopped (not running; send_message resumes it)' : child.state;
  const last = child.lastOutcome ? ` (last turn: ${child.lastOutcome})` : '';
  return `${child.id}  ${state}${last}  ${child.description}`;
}
