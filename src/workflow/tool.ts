/**
 * The `workflow` tool: starts a run with the model's meta, script and args, waits for it, and
 * always disposes it. The tool call's abort cancels the run. Returns the name, the agent count
 * and the JSON value (capped, with a note when cut); a run that did not complete is an error
 * result that says why and which agents failed.
 */
import type { ToolDefinition, ToolOutput } from '../core/tool-contract.js';
import { callerOf, type SubagentServices } from '../subagent/services.js';
import { WORKFLOW_TOOL_DESCRIPTION } from './authoring-guide.js';
import { WorkflowError, type WorkflowResult, type WorkflowService } from './contract.js';

export const WORKFLOW_TOOL = 'workflow';
export const DEFAULT_RESULT_LIMIT = 20_000;

export interface WorkflowToolOptions {
  service: WorkflowService;
  subagents: SubagentServices;
  /** Characters of the JSON value returned to the model; default 20000. */
  resultLimit?: number;
}

interface WorkflowArguments {
  meta: Record<string, unknown>;
  script: string;
  args?: unknown;
}

/** A bare non-object `args` is wrapped as a field so the script always sees an object. */
function argsObject(args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) return {};
  if (typeof args === 'object' && !Array.isArray(args)) return args as Record<string, unknown>;
  return { value: args };
}

function failureLines(result: WorkflowResult): string {
  if (result.failures.length === 0) return '';
  const lines = result.failures
    .slice(0, 20)
    .map((failure) => `- #${failure.seq} ${failure.label}: ${failure.outcome}: ${failure.reason}`);
  const more = result.failures.length > 20 ? `\n- … ${result.failures.length - 20} more` : '';
  return `\nFailed agents:\n${lines.join('\n')}${more}`;
}

export function renderResult(result: WorkflowResult, limit: number): ToolOutput {
  const head = `Workflow "${result.name}" ${result.stopReason} with ${result.agentsStarted} agents.`;
  if (result.stopReason !== 'completed') {
    const error = result.error ? ` ${result.error.code}: ${result.error.message}` : '';
    return { content: `${head}${error}${failureLines(result)}`, isError: true };
  }
  const json = JSON.stringify(result.value, null, 2) ?? 'null';
  const value =
    json.length > limit
      ? `${json.slice(0, limit)}\n… (cut: the value is ${json.length} characters; return less from the script)`
      : json;
  return `${head}${failureLines(result)}\nValue:\n${value}`;
}

export function workflowTool(options: WorkflowToolOptions): ToolDefinition<WorkflowArguments> {
  const limit = options.resultLimit ?? DEFAULT_RESULT_LIMIT;
  return {
    name: WORKFLOW_TOOL,
    description: WORKFLOW_TOOL_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        meta: {
          type: 'object',
          description:
            'The identity block: {name, description, whenToUse?, phases?: [{title, detail?, model?}]}.',
        },
        script: {
          type: 'string',
          description: 'The script body (JavaScript, top-level await, ends in return).',
        },
        args: { description: 'A JSON object given to the script as `args`.' },
      },
      required: ['meta', 'script'],
      additionalProperties: false,
    },
    async execute(args, execution) {
      const caller = callerOf(options.subagents, execution.agentId);
      let run: ReturnType<WorkflowService['start']>;
      try {
        run = options.service.start({
          meta: args.meta as never,
          script: args.script,
          args: argsObject(args.args),
          parent: { sessionId: caller.sessionId, delegationDepth: caller.delegationDepth },
          signal: execution.signal,
        });
      } catch (error) {
        if (error instanceof WorkflowError)
          return { content: `${error.code}: ${error.message}`, isError: true };
        throw error;
      }
      try {
        return renderResult(await run.result, limit);
      } finally {
        run.dispose();
      }
    },
  };
}
