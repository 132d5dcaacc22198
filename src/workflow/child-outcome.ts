/**
 * How a workflow child's end is told: its default label, its usage added up, its outcome judged
 * from the subagent's result, the reply for a start that failed or a cancelled run, and the
 * summary the run's result lists. Pure functions of their arguments; `run-children.ts` uses them.
 */
import { assertNever, errorMessage } from '../base/errors.js';
import type { Usage } from '../llm/contract.js';
import type { TokenCount } from '../llm/prices.js';
import { SubagentError, type SubagentResult } from '../subagent/contract.js';
import type { AgentOutcome, WorkflowAgentEndEvent, WorkflowAgentSummary } from './contract.js';
import type { AgentReply } from './protocol.js';

/** What the outcome of a child depends on: whether it owed a structured answer. */
interface Child {
  schema: boolean;
}

const LABEL_LENGTH = 60;

/** The first line of the prompt, cut to a readable length. */
export function defaultLabel(prompt: string): string {
  const line = prompt.trim().split(/\r?\n/)[0] ?? '';
  return line.length > LABEL_LENGTH ? `${line.slice(0, LABEL_LENGTH - 1)}…` : line;
}

export function addUsage(total: Usage, usage: Usage | undefined): void {
  if (!usage) return;
  total.input += usage.input;
  total.output += usage.output;
  if (usage.reasoning !== undefined) total.reasoning = (total.reasoning ?? 0) + usage.reasoning;
  if (usage.cachedInput !== undefined) {
    total.cachedInput = (total.cachedInput ?? 0) + usage.cachedInput;
  }
  if (usage.cacheWrite !== undefined) total.cacheWrite = (total.cacheWrite ?? 0) + usage.cacheWrite;
}

/** A count's cache reads and writes, each only when non-zero (as the result and journal keep them). */
export function cacheOf(
  tokens: Pick<TokenCount, 'cachedInput' | 'cacheWrite'> | undefined,
): Pick<TokenCount, 'cachedInput' | 'cacheWrite'> {
  return {
    ...(tokens?.cachedInput ? { cachedInput: tokens.cachedInput } : {}),
    ...(tokens?.cacheWrite ? { cacheWrite: tokens.cacheWrite } : {}),
  };
}

export const cancelledReply = (): AgentReply => ({
  kind: 'fatal',
  code: 'CANCELLED',
  message: 'the workflow was cancelled',
});

/** An agent as the result lists it, read from its end event (so every field it carries counts). */
export function summaryOf(event: WorkflowAgentEndEvent): WorkflowAgentSummary {
  return {
    seq: event.seq,
    label: event.label,
    outcome: event.outcome,
    tokens: { input: event.usage.input, output: event.usage.output, ...cacheOf(event.usage) },
    ...(event.costUsd !== undefined ? { costUsd: event.costUsd } : {}),
    ...(event.workflow !== undefined ? { workflow: event.workflow } : {}),
    ...(event.journaled ? { journaled: true as const } : {}),
    ...(event.branch !== undefined ? { branch: event.branch } : {}),
  };
}

export function startFailure(label: string, error: unknown): AgentReply {
  if (error instanceof SubagentError && error.code === 'UNSUPPORTED_SCHEMA') {
    return { kind: 'fatal', code: 'UNSUPPORTED_SCHEMA', message: errorMessage(error) };
  }
  return {
    kind: 'fatal',
    code: 'AGENT_START',
    message: `agent ${JSON.stringify(label)} could not start: ${errorMessage(error)}`,
  };
}

export function judge(
  child: Pick<Child, 'schema'>,
  result: SubagentResult | undefined,
  fault: string | undefined,
): { outcome: AgentOutcome; reason: string } {
  if (!result) return { outcome: 'failed', reason: fault ?? 'the agent failed' };
  switch (result.stopReason) {
    case 'completed':
      if (child.schema && result.structured === undefined) {
        return {
          outcome: 'failed',
          reason: 'the agent finished without delivering a structured answer',
        };
      }
      return { outcome: 'completed', reason: '' };
    case 'error':
      return { outcome: 'failed', reason: result.diagnostic ?? 'the agent stopped with an error' };
    case 'cancelled':
      return { outcome: 'cancelled', reason: result.diagnostic ?? 'the agent was cancelled' };
    default:
      return assertNever(result.stopReason, 'subagent stop reason');
  }
}
