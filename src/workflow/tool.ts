/**
 * The `workflow` tool: starts a run with the model's meta, script and args, or a saved workflow's
 * by `name` (its description lists them, read when a prompt first needs it), waits for it,
 * and always disposes it. The call's abort cancels the run. Returns the name, the agent count and
 * the JSON value (capped, with a note when cut); a run that did not complete is an error result
 * naming why and the failed agents. With `run_in_background` it is a job (workflow-job.ts).
 */

import { errorMessage } from '../base/errors.js';
import { backgroundRunnerKey } from '../core/background.js';
import type { Context } from '../core/context.js';
import type { ToolDefinition, ToolOutput } from '../core/tool-contract.js';
import { callerOf, type SubagentServices } from '../subagent/services.js';
import { WORKFLOW_TOOL_DESCRIPTION, workflowToolDescription } from './authoring-guide.js';
import {
  WorkflowError,
  type WorkflowResult,
  type WorkflowService,
  type WorkflowStartRequest,
} from './contract.js';
import { readStoredRun } from './run-store.js';
import {
  listSavedWorkflows,
  loadSavedWorkflow,
  type SavedWorkflowPlaces,
} from './saved-workflows.js';
import { startWorkflowJob } from './workflow-job.js';

export const WORKFLOW_TOOL = 'workflow';
export const DEFAULT_RESULT_LIMIT = 20_000;

export interface WorkflowToolOptions {
  service: WorkflowService;
  subagents: SubagentServices;
  /** Characters of the JSON value returned to the model; default 20000. */
  resultLimit?: number;
  /**
   * The scope the service emits its `workflow/*` events on (the runtime's root); a background
   * run's progress lines are read from there. Without it a background run has no output.
   */
  context?: Context;
  /** Where saved workflows are found (`name`); absent: none. */
  places?: SavedWorkflowPlaces;
}

interface WorkflowArguments {
  meta?: Record<string, unknown>;
  script?: string;
  name?: string;
  args?: unknown;
  run_in_background?: boolean;
  resume?: string;
  budget_tokens?: number;
}

/** A bare non-object `args` is wrapped as a field so the script always sees an object. */
function argsObject(args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) return {};
  if (typeof args === 'object' && !Array.isArray(args)) return args as Record<string, unknown>;
  return { value: args };
}

/** The run's meta and body: the model's own, or a saved workflow's read from its file. */
function scriptOf(
  args: WorkflowArguments,
  places: SavedWorkflowPlaces,
): Pick<WorkflowStartRequest, 'meta' | 'script' | 'scriptPath'> {
  if (args.script !== undefined && args.name !== undefined) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      'give either `script` (with `meta`) or `name` (a saved workflow), not both',
    );
  }
  if (args.name !== undefined) {
    if (args.meta !== undefined) {
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        'a saved workflow takes its meta from its file: give `name` and `args` without `meta`',
      );
    }
    const saved = loadSavedWorkflow(args.name, places);
    return { meta: saved.meta, script: saved.body, scriptPath: saved.path };
  }
  if (args.script === undefined) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      'give `script` and `meta` to run a script, or `name` to run a saved workflow',
    );
  }
  if (args.meta === undefined) {
    throw new WorkflowError(
      'META_INVALID',
      '`meta` is needed with `script`: {name, description, whenToUse?, phases?}',
    );
  }
  return { meta: args.meta as never, script: args.script };
}

/** With `resume` and neither `script` nor `name`: the kept run's own script, meta and args. */
function keptScriptOf(
  args: WorkflowArguments,
  places: SavedWorkflowPlaces,
):
  | (Pick<WorkflowStartRequest, 'meta' | 'script' | 'scriptPath'> & {
      args: Record<string, unknown>;
    })
  | undefined {
  if (args.resume === undefined || args.script !== undefined || args.name !== undefined) {
    return undefined;
  }
  if (args.meta !== undefined) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      'with `resume` and no `script` the kept meta is used: give `meta` only together with `script`',
    );
  }
  if (places.home === undefined) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      'no runs are kept here, so there is none to resume',
    );
  }
  const stored = readStoredRun(places.home, args.resume);
  return {
    meta: stored.meta,
    script: stored.script,
    args: stored.args,
    ...(stored.record.scriptPath !== undefined ? { scriptPath: stored.record.scriptPath } : {}),
  };
}

/** The authoring guide plus the saved workflows that can run; a folder it cannot read is said. */
function describeTool(places: SavedWorkflowPlaces): string {
  try {
    const runnable = listSavedWorkflows(places).flatMap((saved) =>
      saved.kind === 'valid' ? [{ name: saved.name, description: saved.meta.description }] : [],
    );
    return workflowToolDescription(runnable);
  } catch (error) {
    return `${WORKFLOW_TOOL_DESCRIPTION}\n\nThe saved workflows could not be listed: ${errorMessage(error)}`;
  }
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
    const resume = `\nRun id ${result.runId}: call again with resume: "${result.runId}" to rerun it without paying again for the agents that completed.`;
    return { content: `${head}${error}${failureLines(result)}${resume}`, isError: true };
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
  const places = options.places ?? {};
  let description: string | undefined;
  return {
    name: WORKFLOW_TOOL,
    deferral: 'rare',
    summary: 'Run a JavaScript script that fans work out to many subagents.',
    // Read when a prompt first needs it, so a start that builds no prompt reads no folder.
    get description() {
      description ??= describeTool(places);
      return description;
    },
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
        name: {
          type: 'string',
          description:
            'Instead of meta and script: the name of a saved workflow (listed in this description).',
        },
        args: { description: 'A JSON object given to the script as `args`.' },
        run_in_background: {
          type: 'boolean',
          description:
            'Run as a background job and return its id at once: job_output shows its progress, job_kill cancels it, and its result arrives as a message when it ends.',
        },
        resume: {
          type: 'string',
          description:
            "The run id of an earlier run (a result that did not complete names it): the run's kept script reruns (or the `script` or `name` given, edited or not), and every agent() call that completed before returns its recorded answer at once, without paying again.",
        },
        budget_tokens: {
          type: 'integer',
          minimum: 1,
          description:
            "A hard ceiling on the run's tokens (input + output of every agent): once reached, the run ends with BUDGET_EXHAUSTED. The script reads it as `budget`.",
        },
      },
      additionalProperties: false,
    },
    async execute(args, execution) {
      const caller = callerOf(options.subagents, execution.agentId);
      try {
        const kept = keptScriptOf(args, places);
        const request: WorkflowStartRequest = {
          ...(kept ?? scriptOf(args, places)),
          args: args.args === undefined && kept ? kept.args : argsObject(args.args),
          parent: { sessionId: caller.sessionId, delegationDepth: caller.delegationDepth },
          ...(args.budget_tokens !== undefined ? { budgetTokens: args.budget_tokens } : {}),
          ...(args.resume !== undefined ? { resumeRunId: args.resume } : {}),
        };
        if (args.run_in_background === true) {
          const runner = execution.context.find(backgroundRunnerKey);
          if (!runner) {
            return {
              content:
                'run_in_background is not available here: no background job runner is installed. Run the workflow in the foreground instead.',
              isError: true,
            };
          }
          return startWorkflowJob({
            runner,
            service: options.service,
            request,
            owner: caller.sessionId,
            render: (result) => renderResult(result, limit),
            ...(options.context ? { context: options.context } : {}),
          });
        }
        const run = options.service.start({ ...request, signal: execution.signal });
        try {
          return renderResult(await run.result, limit);
        } finally {
          run.dispose();
        }
      } catch (error) {
        if (error instanceof WorkflowError)
          return { content: `${error.code}: ${error.message}`, isError: true };
        throw error;
      }
    },
  };
}
