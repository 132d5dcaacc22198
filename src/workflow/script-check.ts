/**
 * Everything a run checks of its script before it starts, shared by `start` and `loom workflow
 * check`: the body parses (`checkScriptBody`), its literally written `agent()` options are known
 * and valid (`checkAgentCalls`), and, when a call asks for a worktree, the workspace can give
 * one. Throws the `WorkflowError` of the first failing check; it never runs the script.
 */
import type { AgentTypes } from '../project/agent-types-contract.js';
import { type AgentCallSummary, checkAgentCalls } from './agent-call-check.js';
import { worktreeRefusal } from './agent-worktree.js';
import { WorkflowError } from './contract.js';
import { checkScriptBody } from './script-parse.js';

export interface ScriptCheckOptions {
  /** The agent types a call may name; absent: an `agentType` is checked when the call runs. */
  agentTypes?: AgentTypes;
  /** The workspace whose git repository worktrees come from. */
  workspace: string;
}

export function checkScript(script: string, options: ScriptCheckOptions): AgentCallSummary {
  checkScriptBody(script);
  const calls = checkAgentCalls(
    script,
    options.agentTypes ? { agentTypes: options.agentTypes } : {},
  );
  const refusal = calls.worktree ? worktreeRefusal(options.workspace) : undefined;
  if (refusal !== undefined) throw new WorkflowError('INVALID_ARGUMENT', refusal);
  return calls;
}
