/**
 * The `subagent` tool: hands one task to a child of the default provider, a fresh one (`spawn`)
 * or a fork that has seen the caller's completed turns; its description and results say which,
 * and never promise a fork a fresh context. `agent_type` picks one of the agent types its
 * description lists (persona, tools, model, effort); an unknown one fails before anything starts. In the foreground it returns the child's final text
 * (a failing child is an error result; the parent goes on); with `run_in_background` the child's
 * id comes back at once and its answer arrives later as a message. Where a background runner is
 * in scope, that first turn is also a job of kind `subagent` (readable, killable) whose
 * completion notice replaces the child registry's. Several calls in one step run concurrently
 * and their results commit in model order.
 */
import type { z } from 'zod';
import { assertNever, errorMessage } from '../../base/errors.js';
import {
  type BackgroundHooks,
  type BackgroundOutcome,
  type BackgroundRunner,
  backgroundRunnerKey,
} from '../../core/background.js';
import { defineBuiltinTool } from '../../core/builtin-tool.js';
import { isEvent } from '../../core/session-events.js';
import type { ToolDefinition } from '../../core/tool-contract.js';
import type { JsonSchema } from '../../llm/contract.js';
import type { SubagentResult, SubagentRun, SubagentStartRequest } from '../contract.js';
import { type Caller, callerOf, type SubagentServices } from '../services.js';
import {
  type AgentTypeChoice,
  agentTypeToolsNote,
  chooseAgentType,
  describeAgentTypes,
} from './agent-type-choice.js';

const promptText = {
  fresh:
    'The complete task. The subagent has not seen this conversation: include every fact, path and constraint it needs, and what to report back.',
  forked:
    "The complete task. The subagent has seen this session's completed turns but not the current one (neither the latest request nor your work on it): include every fact, path and constraint from this turn it needs, and say what to report back.",
};

const schemaFor = (zod: typeof z, forked: boolean) =>
  zod.strictObject({
    description: zod
      .string()
      .min(1)
      .max(120)
      .describe('A short label (3-8 words), shown in progress views.'),
    prompt: zod
      .string()
      .min(1)
      .describe(forked ? promptText.forked : promptText.fresh),
    run_in_background: zod
      .boolean()
      .optional()
      .describe(
        'Return its id at once; its answer arrives later as a message (send_message adds instructions).',
      ),
    provider: zod
      .string()
      .min(1)
      .optional()
      .describe(
        'Which provider runs it (default: the configured one). ACP providers run another agent process: not in the background, and only `acp` (Loom itself) takes output_schema.',
      ),
    agent_type: zod
      .string()
      .min(1)
      .optional()
      .describe('One of the agent types listed above (its own instructions, tools and model).'),
    output_schema: zod
      .record(zod.string(), zod.unknown())
      .optional()
      .describe('A JSON Schema the answer must match; its value comes back as JSON text.'),
  });

const describeTool = (forked: boolean, agentTypes: string) =>
  [
    forked
      ? "Delegate a task to a subagent: a separate agent with the same tools, forked from this session: it has seen this session's completed turns, but not the turn in progress (neither the latest request nor your work on it so far)."
      : 'Delegate a self-contained task to a subagent: a separate agent with the same tools and a fresh context.',
    'Use it for independent work (research, a focused change, a review) whose steps should stay out of',
    'this conversation; it returns its final answer as text. Several calls in one message run in',
    'parallel; delegation nests only up to the depth limit.',
  ].join(' ') + (agentTypes === '' ? '' : `\n\n${agentTypes}`);

type Arguments = z.infer<ReturnType<typeof schemaFor>>;

export function subagentTool(services: SubagentServices): ToolDefinition {
  const forked = forksTheCaller(services);
  return defineBuiltinTool({
    name: 'subagent',
    description: describeTool(forked, describeAgentTypes(services)),
    arguments: (zod) => schemaFor(zod, forked),
    // The prompt's wording differs for a fork: each kind has its own generated schema.
    variant: forked ? 'subagent/fork' : 'subagent',
    concurrencySafe: true,
    async execute(args, execution) {
      const caller = callerOf(services, execution.agentId);
      // An unknown type fails here, before a job or a child is started.
      const type = chooseAgentType(services, caller, args.agent_type);
      // Its list names tools the child cannot have: the caller is told, in one line, each time.
      const typeNote = agentTypeToolsNote(services, caller, args.agent_type);
      const noted = typeNote === undefined ? '' : ` Note: ${typeNote}.`;
      const forks = services.registry.get(providerOf(services, args)).capabilities
        .inheritsParentContext;
      const seen = forks ? `; ${forkNote(services, caller.sessionId)}` : '';
      const background = args.run_in_background === true;
      const runner = background ? execution.context.find(backgroundRunnerKey) : undefined;
      if (runner) return `${startAsJob(services, runner, caller, type, args, seen)}${noted}`;
      const run = services.registry.start(providerOf(services, args), {
        ...request(caller, type, args),
        ...(background ? { continuable: true } : { signal: execution.signal }),
      });
      if (background) {
        void run.result.catch(() => undefined);
        return `Started subagent ${run.id} (${args.description}) in the background${seen}. Its answer will arrive as a message; use send_message with subagent_id "${run.id}" to add instructions.${noted}`;
      }
      const result = await run.result;
      const heading =
        (forks ? `[forked subagent ${run.id}${seen}]\n` : '') +
        (typeNote === undefined ? '' : `[${typeNote}]\n`);
      if (result.stopReason === 'completed')
        return `${heading}${result.output || '(the subagent gave no text)'}`;
      const reason = result.diagnostic ?? result.stopReason;
      return {
        content: `${heading}The subagent ${run.id} did not complete (${result.stopReason}): ${reason}`,
        isError: true,
      };
    },
  });
}

/** Whether the tool's provider starts a child with the caller's completed turns (a fork). */
function forksTheCaller(services: SubagentServices): boolean {
  const { registry, defaultProvider } = services;
  return (
    registry.names().includes(defaultProvider) &&
    registry.get(defaultProvider).capabilities.inheritsParentContext
  );
}

/** What a fork of `sessionId` made now has seen: its completed turns (the current one is open). */
function forkNote(services: SubagentServices, sessionId: string): string {
  const events = services.runtime.find(sessionId)?.log.events ?? [];
  const turns = events.filter((event) => event.type === 'turn/end').length;
  if (turns === 0) return 'it has no history: this session had no completed turn yet';
  const plural = turns === 1 ? '' : 's';
  return `it has seen this session's ${turns} completed turn${plural}, not the current one`;
}

function providerOf(services: SubagentServices, args: Arguments): string {
  return args.provider ?? services.defaultProvider;
}

function request(caller: Caller, type: AgentTypeChoice, args: Arguments): SubagentStartRequest {
  return {
    parent: { sessionId: caller.sessionId, delegationDepth: caller.delegationDepth },
    prompt: args.prompt,
    description: args.description,
    ...(args.output_schema !== undefined ? { outputSchema: args.output_schema as JsonSchema } : {}),
    ...(caller.maxDepth !== undefined ? { maxDepth: caller.maxDepth } : {}),
    ...type,
  };
}

/** The child starts only once the runner has accepted the job, so a refused job starts nothing. */
function startAsJob(
  services: SubagentServices,
  runner: BackgroundRunner,
  caller: Caller,
  type: AgentTypeChoice,
  args: Arguments,
  seen: string,
): string {
  let childId = '';
  const { id } = runner.start({
    kind: 'subagent',
    label: args.description,
    owner: caller.sessionId,
    run: () => {
      const run = services.registry.start(providerOf(services, args), {
        ...request(caller, type, args),
        continuable: true,
      });
      childId = run.id;
      services.children.skipNextNotice(run.id);
      return childJob(services, run);
    },
  });
  return `Started subagent ${childId} (${args.description}) in the background as job ${id}${seen}. Its answer will arrive as a message; read its progress with job_output (job_id "${id}"), stop it with job_kill, and use send_message with subagent_id "${childId}" to add instructions.`;
}

/** The child's first turn as background work: its streamed text is the job's output. */
function childJob(services: SubagentServices, run: SubagentRun): BackgroundHooks {
  let unread = '';
  let stepText = '';
  const unsubscribe =
    services.runtime.find(run.id)?.log.onAppend((event) => {
      if (isEvent(event, 'assistant/chunk')) {
        if (event.data.kind !== 'text') return;
        unread += event.data.text;
        stepText += event.data.text;
      } else if (isEvent(event, 'assistant/message')) {
        if (stepText !== '' && !stepText.endsWith('\n')) unread += '\n';
        stepText = '';
      }
    }) ?? (() => {});
  const done = run.result
    .then(
      (result) => {
        // The answer travels in the summary; the same text left unread would only repeat it.
        if (result.stopReason === 'completed') unread = '';
        return outcomeOf(result);
      },
      (error: unknown): BackgroundOutcome => {
        return { status: 'failed', summary: `the subagent failed: ${errorMessage(error)}` };
      },
    )
    .finally(unsubscribe);
  return {
    cancel: (reason) => run.cancel(reason ?? 'the job was killed'),
    done,
    readOutput: () => {
      const text = unread;
      unread = '';
      return text;
    },
  };
}

function outcomeOf(result: SubagentResult): BackgroundOutcome {
  switch (result.stopReason) {
    case 'completed':
      return { status: 'completed', summary: result.output || '(the subagent gave no text)' };
    case 'error':
      return { status: 'failed', summary: result.diagnostic ?? 'the subagent failed' };
    case 'cancelled':
      return { status: 'killed', summary: result.diagnostic ?? 'the subagent was cancelled' };
    default:
      return assertNever(result.stopReason, 'subagent stop reason');
  }
}
