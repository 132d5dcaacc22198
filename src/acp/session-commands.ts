/**
 * The slash commands an ACP client offers besides `/goal` (see goal-prompts.ts): `/plan` switches
 * plan mode on or off (and tells the client the new mode), `/todos` shows the todo list, `/usage`
 * the tokens the session's turns used, `/context` the next request's size by part, `/compact
 * [instructions]` compacts now (prunes, or summarizes as the instructions ask; refused while a
 * turn runs), `/rewind [N [files|conversation|both]]` and `/diff` (rewind-command.ts). A prompt
 * that is one of them is answered as text and never reaches the model; anything after the name
 * of any but `/compact` and `/rewind` makes it an ordinary prompt. The workspace's
 * custom commands (project/command-contract.ts) are offered too, but for one named like a
 * built-in command (which wins); `/NAME args` runs one as its turn. Each prompt of a connected
 * MCP server is offered as `mcp__SERVER__PROMPT` and runs as its turn (mcp/prompt-commands.ts).
 */
import type {
  AvailableCommand,
  ContentBlock,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk';
import { assertNever, errorMessage } from '../base/errors.js';
import { contextReport } from '../context/context-report.js';
import { compactAgent, manualCompactionLine } from '../context/manual-compaction.js';
import { requestSpend } from '../core/request-spend.js';
import type { Usage } from '../llm/contract.js';
import { tokensText } from '../llm/usage-text.js';
import { agentServers } from '../mcp/agent-servers.js';
import {
  cachedPromptCommands,
  isMcpPromptText,
  mcpPromptCommands,
  runMcpPromptTurn,
} from '../mcp/prompt-commands.js';
import { attachedResources } from '../mcp/resource-mentions.js';
import { planModeOf } from '../plan/install.js';
import { type CustomCommand, commandCatalogKey } from '../project/command-contract.js';
import {
  type CommandInvocation,
  parseInvocation,
  runCommandTurn,
} from '../project/command-turn.js';
import { todosOf } from '../todo/install.js';
import type { AcpSession } from './acp-sessions.js';
import { GOAL_AVAILABLE_COMMAND, GOAL_COMMAND_NAME } from './goal-command-text.js';
import {
  DIFF_DESCRIPTION,
  diffAnswer,
  REWIND_DESCRIPTION,
  REWIND_HINT,
  rewindAnswer,
} from './rewind-command.js';

const COMMANDS = {
  plan: 'Switch plan mode on or off: in plan mode the agent explores read-only and presents a plan for approval.',
  todos: "Show this session's todo list.",
  usage: "Show the tokens this session's turns have used.",
  context: "Show the next request's estimated size, part by part, against the model's window.",
  compact:
    'Compact the context now: prune old tool results, or with instructions summarize earlier turns as they ask (the log keeps everything; recall brings any back).',
  rewind: REWIND_DESCRIPTION,
  diff: DIFF_DESCRIPTION,
} as const;

/** The commands that take words after their name. */
const TAKES_ARGUMENTS: ReadonlySet<string> = new Set(['compact', 'rewind']);

export type SessionCommand = keyof typeof COMMANDS;

/** The names a custom command cannot take over. */
const BUILTIN_NAMES: ReadonlySet<string> = new Set([GOAL_COMMAND_NAME, ...Object.keys(COMMANDS)]);

/** The custom commands of the session's workspace that no built-in command hides. */
function customCommandsOf(session: AcpSession): CustomCommand[] {
  const catalog = session.setup.runtime.root.find(commandCatalogKey);
  return (catalog?.list() ?? []).filter((command) => !BUILTIN_NAMES.has(command.name));
}

/**
 * The `available_commands_update` a session gets after `session/new` and `session/load`: the
 * built-in commands, the custom ones, and each prompt of the MCP servers the session reaches
 * (`mcp__SERVER__PROMPT`, its arguments as the input hint).
 */
export async function availableCommandsUpdate(
  session: AcpSession,
  /** `cached`: the prompts as last listed (a change notice just listed them again). */
  prompts: 'list' | 'cached' = 'list',
): Promise<SessionUpdate> {
  const { context } = session.handle;
  const commands =
    prompts === 'cached' ? cachedPromptCommands(context) : await mcpPromptCommands(context);
  const others: AvailableCommand[] = Object.entries(COMMANDS).map(([name, description]) => ({
    name,
    description,
  }));
  const compact = others.find((command) => command.name === 'compact');
  if (compact) compact.input = { hint: 'what the summary should focus on (optional)' };
  const rewind = others.find((command) => command.name === 'rewind');
  if (rewind) rewind.input = { hint: REWIND_HINT };
  return {
    sessionUpdate: 'available_commands_update',
    availableCommands: [
      GOAL_AVAILABLE_COMMAND,
      ...others,
      ...customCommandsOf(session).map((command) => ({
        name: command.name,
        description: command.description,
        ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
      })),
      ...commands.map((command) => ({
        name: command.name,
        description: `${command.prompt.description ?? `the prompt ${command.prompt.name}`} (MCP server ${command.server})`,
        ...(command.usage !== '' ? { input: { hint: command.usage } } : {}),
      })),
    ],
  };
}

/**
 * Sends the session a new `available_commands_update` each time the prompts of an MCP server it
 * reaches change (`notifications/prompts/list_changed`), until the session's agent closes.
 */
export function followPromptChanges(session: AcpSession): void {
  const servers = agentServers(session.handle.context);
  if (!servers) return;
  const stop = servers.onCatalogChanged((change) => {
    if (change.kind !== 'prompts' || session.handle.log.closed) return;
    void availableCommandsUpdate(session, 'cached').then((update) => session.send(update));
  });
  session.handle.onClose(stop);
}

/**
 * `text` with the resources its blocks link to (`resource_link` URIs a connected MCP server
 * serves) and its `@server:uri` mentions attached (mcp/resource-mentions.ts).
 */
export async function promptWithResources(
  session: AcpSession,
  text: string,
  blocks: readonly ContentBlock[],
): Promise<string> {
  const links = blocks.flatMap((block) => (block.type === 'resource_link' ? [block.uri] : []));
  const attached = await attachedResources(session.handle.context, text, links);
  return attached === '' ? text : `${text}\n\n${attached}`;
}

/**
 * Runs `/mcp__SERVER__PROMPT args` as its turn through `answer`; a prompt that cannot run (an
 * unknown prompt, a missing argument, the server's error) is answered with why, as text, and
 * never reaches the model. Undefined when `text` is not a prompt command.
 */
export async function runMcpPrompt(
  session: AcpSession,
  text: string,
  answer: (text: string) => Promise<StopReason>,
): Promise<StopReason | undefined> {
  if (!isMcpPromptText(text)) return undefined;
  let started = false;
  try {
    const ran = await runMcpPromptTurn(session.handle, text, (body) => {
      started = true;
      return answer(body);
    });
    return ran?.result;
  } catch (error) {
    if (started) throw error;
    session.send({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: errorMessage(error) },
    });
    return 'end_turn';
  }
}

/** The custom command `text` calls (`/NAME args`), unless a built-in command has that name. */
export function customCommandOf(session: AcpSession, text: string): CommandInvocation | undefined {
  const invocation = parseInvocation(session.setup.runtime.root.find(commandCatalogKey), text);
  return invocation && !BUILTIN_NAMES.has(invocation.command.name) ? invocation : undefined;
}

/**
 * Runs a custom command as its turn through `answer` (the prompt path a typed message takes). A
 * command that cannot run (an unusable field, a model that cannot be made) is answered with why,
 * as text, and never reaches the model.
 */
export async function runCustomCommand(
  session: AcpSession,
  invocation: CommandInvocation,
  answer: (text: string) => Promise<StopReason>,
): Promise<StopReason> {
  const say = (text: string) =>
    session.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  let started = false;
  try {
    return await runCommandTurn(session.handle, invocation, {
      resolveModel: (spec) => session.setup.resolveModel(spec),
      start: (text) => {
        started = true;
        return answer(text);
      },
      workspace: session.setup.runtime.cwd,
      note: (line) => say(`${line}\n\n`),
    });
  } catch (error) {
    if (started) throw error;
    say(errorMessage(error));
    return 'end_turn';
  }
}

export interface SessionCommandCall {
  command: SessionCommand;
  /** What follows the name (only `/compact` and `/rewind` take any). */
  args: string;
}

/**
 * The command a prompt is: exactly `/plan`, `/todos`, `/usage`, `/context` or `/diff`, or
 * `/compact` with optional instructions, `/rewind` with an optional turn and what goes back.
 */
export function parseSessionCommand(text: string): SessionCommandCall | undefined {
  const match = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const name = match?.[1];
  if (name === undefined || !Object.hasOwn(COMMANDS, name)) return undefined;
  const args = match?.[2]?.trim() ?? '';
  if (args !== '' && !TAKES_ARGUMENTS.has(name)) return undefined;
  return { command: name as SessionCommand, args };
}

/** Answers the command with one agent message (after a mode update for `/plan`). */
export async function runSessionCommand(
  session: AcpSession,
  call: SessionCommandCall,
): Promise<void> {
  const text = await answerOf(session, call);
  session.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
}

async function answerOf(
  session: AcpSession,
  { command, args }: SessionCommandCall,
): Promise<string> {
  switch (command) {
    case 'plan': {
      const service = planModeOf(session.handle);
      if (!service) return 'This session has no plan mode.';
      const mode = service.mode === 'plan' ? 'default' : 'plan';
      service.setMode(mode, 'user');
      session.send({ sessionUpdate: 'current_mode_update', currentModeId: mode });
      return mode === 'plan' ? 'Plan mode is on.' : 'Plan mode is off.';
    }
    case 'todos': {
      const service = todosOf(session.handle);
      if (!service) return 'This session has no todo list.';
      if (service.problem) return `The todo list cannot be read: ${service.problem}`;
      const lines = service.todos.map((todo) => `- [${todo.status}] ${todo.content}`);
      return lines.length > 0 ? lines.join('\n') : 'The todo list is empty.';
    }
    case 'usage': {
      const usage = sessionUsageOf(session.handle.log.events);
      return `Tokens this session used: ${tokensText(usage)}.`;
    }
    case 'compact': {
      if (session.handle.agent.status !== 'idle') {
        return '/compact waits for an idle session: a turn is running (cancel it, or try again once it ends).';
      }
      const keepSteps = session.setup.context.keepSteps;
      const instructions = args;
      const result = await compactAgent(session.handle, {
        keepSteps,
        ...(instructions !== '' ? { instructions } : {}),
      });
      return manualCompactionLine(result);
    }
    case 'context':
      return contextReport(session.handle);
    case 'rewind':
      return rewindAnswer(session, args);
    case 'diff':
      return diffAnswer(session);
    default:
      return assertNever(command, 'session command');
  }
}

/**
 * The usage of every turn that ended among `events`, and of side requests made outside a turn
 * (a manual compaction's summary), added up.
 */
export function sessionUsageOf(events: readonly { type: string; data: unknown }[]): Usage {
  const total = { input: 0, output: 0, reasoning: 0, cachedInput: 0, cacheWrite: 0 };
  for (const event of events) {
    const outsideTurn =
      event.type === 'model/side-request' && requestSpend(event)?.turnId === undefined;
    if (event.type !== 'turn/end' && !outsideTurn) continue;
    const usage = (event.data as { usage: Usage }).usage;
    total.input += usage.input;
    total.output += usage.output;
    total.reasoning += usage.reasoning ?? 0;
    total.cachedInput += usage.cachedInput ?? 0;
    total.cacheWrite += usage.cacheWrite ?? 0;
  }
  return total;
}
