/**
 * Answers an ACP child's `session/request_permission` with the parent's rules: the remote call
 * passes the parent's `tools/pre-execute` waterfall under its name and raw input. An allow rule
 * approves and a deny rule refuses; `ask`, or no rule at all (the agent asked because its own
 * policy wanted a person), goes to the person at the root through the permission asker, and
 * with nobody to ask it is refused. It never rejects: a failure refuses the call.
 */
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import { errorMessage } from '../base/errors.js';
import type { Context } from '../core/context.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import {
  type PermissionAnswer,
  type PreExecuteDecision,
  permissionAskerKey,
  type ToolCallRequest,
  toolPreExecute,
} from '../core/tool-execution.js';
import { remoteToolName } from './acp-child-log.js';

export interface PermissionScope {
  /** Where the parent's rules and asker are found (the runtime's root scope). */
  context: Context;
  /** The child's local session id, as the asking agent. */
  agentId: string;
  turnId: string;
  /** Settles a pending question when the child's run ends. */
  signal: AbortSignal;
  /** Told each decision, for the child's stderr-free record (must not throw). */
  onDecision?(decision: { name: string; approved: boolean; reason: string }): void;
}

/** Names the remote call for the rules; it runs in the remote agent, never here. */
function remoteTool(name: string): ToolDefinition {
  return {
    name,
    description: 'a tool call of a remote ACP agent',
    parameters: { type: 'object' },
    execute: () => {
      throw new Error(`${name} runs in the remote agent, not in Loom`);
    },
  };
}

export async function answerPermission(
  scope: PermissionScope,
  params: RequestPermissionRequest,
): Promise<RequestPermissionResponse> {
  const { toolCall } = params;
  const name = remoteToolName(toolCall);
  const request: ToolCallRequest = {
    callId: toolCall.toolCallId,
    name,
    arguments: toolCall.rawInput ?? {},
    agentId: scope.agentId,
    turnId: scope.turnId,
    tool: remoteTool(name),
  };
  let approved = false;
  let reason: string;
  try {
    const decision: PreExecuteDecision = await scope.context.run(toolPreExecute, request, () => ({
      action: 'ask',
      reason: `the remote agent asks to run ${toolCall.title ?? name}`,
    }));
    if (decision.action === 'allow') {
      approved = true;
      reason = 'allowed by a permission rule';
    } else if (decision.action === 'deny') {
      reason = decision.reason;
    } else {
      const answer = await askRoot(scope, request, decision.reason);
      approved = answer === true;
      reason = approved ? 'approved by the user' : refusalOf(answer, decision.reason);
    }
  } catch (error) {
    reason = `the permission check failed: ${errorMessage(error)}`;
  }
  scope.onDecision?.({ name, approved, reason });
  const option = pick(params.options, approved);
  if (!option) return { outcome: { outcome: 'cancelled' } };
  return { outcome: { outcome: 'selected', optionId: option.optionId } };
}

async function askRoot(
  scope: PermissionScope,
  call: ToolCallRequest,
  reason: string,
): Promise<PermissionAnswer | 'nobody'> {
  const asker = scope.context.find(permissionAskerKey);
  if (!asker) return 'nobody';
  return asker.ask({ call, reason, signal: scope.signal });
}

function refusalOf(answer: PermissionAnswer | 'nobody', reason: string): string {
  if (answer === 'nobody') return `${reason}, but nobody is available to approve it`;
  if (typeof answer === 'object') return `not approved: ${answer.feedback}`;
  return 'not approved by the user';
}

/** A one-time option of the wanted kind first; an "always" option only when it is the only one. */
function pick(
  options: readonly PermissionOption[],
  approved: boolean,
): PermissionOption | undefined {
  const kinds = approved ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option) return option;
  }
  return undefined;
}
