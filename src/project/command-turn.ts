/**
 * Runs a custom command as a turn of its own: once the agent is idle, its `model` and
 * `allowed-tools` are applied, `command/run` is logged and the expanded body is sent; at that
 * turn's end (or the session's close) both are undone, so the next turn has the session's model
 * and tools again. Under `allowed-tools` the other tools are hidden from the model and any call of
 * them (or a bash command outside the allowed patterns) is denied by a guard. A command that
 * cannot run fails before anything is applied or sent.
 */

import { isAbsolute, relative } from 'node:path';
import { errorMessage } from '../base/errors.js';
import { agentTurnEnd } from '../core/agent-hooks.js';
import type { Disposer } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { toolsAvailable } from '../core/tool-presentation.js';
import type { ModelClient } from '../llm/contract.js';
import { type AllowedTool, namesTool, refusal } from './command-allowed-tools.js';
import { expandCommandBody } from './command-arguments.js';
import { type CommandCatalog, CommandError, type CustomCommand } from './command-contract.js';

/** `file` relative to `workspace` when inside it, else as it is. */
export function shownPath(workspace: string, file: string): string {
  const inside = relative(workspace, file);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? file : inside;
}

/** Code Mode's tool: its inner calls meet the guard one by one, so it stays. */
const CODE_TOOL = 'run_code';

export interface CommandInvocation {
  command: CustomCommand;
  /** What followed the name. */
  args: string;
}

/** `text` as a call of one of `catalog`'s commands (`/NAME args`), or undefined. */
export function parseInvocation(
  catalog: CommandCatalog | undefined,
  text: string,
): CommandInvocation | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = match && catalog?.find(match[1] as string);
  return command ? { command, args: match?.[2]?.trim() ?? '' } : undefined;
}

export interface CommandTurnOptions<Result> {
  /** The client of a model spec (throws on a bad one). */
  resolveModel(spec: string): ModelClient;
  /** Sends the message that starts the turn (`handle.agent.prompt`, or an ACP prompt). */
  start(text: string): Promise<Result>;
  /** The workspace: the command's file is logged relative to it when inside it. */
  workspace: string;
  /** Told what the turn does not apply (a pattern of a tool other than bash). Must not throw. */
  note?(line: string): void;
}

/** Runs `invocation` on `handle` as described above; rejects, before anything runs, when it cannot. */
export async function runCommandTurn<Result>(
  handle: AgentHandle,
  invocation: CommandInvocation,
  options: CommandTurnOptions<Result>,
): Promise<Result> {
  const { command, args } = invocation;
  const model = checkInvocation(invocation, options.resolveModel);
  for (const entry of command.allowedTools ?? []) {
    if (entry.pattern !== undefined && entry.tool !== 'bash') {
      options.note?.(
        `/${command.name}: ${entry.written}: only bash patterns are applied; ${entry.tool} may be used with any arguments in this turn`,
      );
    }
  }
  const { agent } = handle;
  // Its own turn: a running one (or queued follow-ups) ends first.
  while (agent.status !== 'idle' || agent.inbox.followup > 0) await agent.whenIdle();
  const undo = applyForNextTurn(handle, command, model);
  handle.log.append('command/run', {
    name: command.name,
    file: shownPath(options.workspace, command.file),
    arguments: args,
    ...(command.model !== undefined ? { model: command.model } : {}),
    ...(command.allowedTools
      ? { allowedTools: command.allowedTools.map((entry) => entry.written) }
      : {}),
  });
  try {
    return await options.start(expandCommandBody(command.body, args));
  } catch (error) {
    undo();
    throw error;
  }
}

/**
 * Throws, as `runCommandTurn` would before it does anything, when the command cannot run: a
 * field it cannot honour, a model spec that makes no client. Returns the model's client.
 */
export function checkInvocation(
  invocation: CommandInvocation,
  resolveModel: (spec: string) => ModelClient,
): ModelClient | undefined {
  const { command } = invocation;
  if (command.problem) {
    throw new CommandError('COMMAND_UNUSABLE', `/${command.name} cannot run: ${command.problem}`);
  }
  if (command.model === undefined) return undefined;
  try {
    return resolveModel(command.model);
  } catch (error) {
    throw new CommandError(
      'COMMAND_UNUSABLE',
      `/${command.name} cannot run: its model ${command.model} (${command.file}): ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

/** Applies the command's model and tools until the agent's next turn ends; returns the early undo. */
function applyForNextTurn(
  handle: AgentHandle,
  command: CustomCommand,
  model: ModelClient | undefined,
): Disposer {
  const { agent } = handle;
  const previous = agent.model;
  if (model) agent.setModel(model);
  const disposers: Disposer[] = [];
  if (command.allowedTools) disposers.push(...restrictTools(handle, command, command.allowedTools));
  let undone = false;
  const undo = () => {
    if (undone) return;
    undone = true;
    for (const dispose of disposers.reverse()) dispose();
    // A model the person chose meanwhile (/model) stays.
    if (model && agent.model === model) agent.setModel(previous);
  };
  // Synchronous, before the agent takes its next follow-up, so that turn starts unrestricted.
  disposers.push(
    handle.context.on(agentTurnEnd, ({ agentId }) => {
      if (agentId === agent.id) undo();
    }),
  );
  handle.onClose(undo);
  return undo;
}

function restrictTools(
  handle: AgentHandle,
  command: CustomCommand,
  allowed: readonly AllowedTool[],
): Disposer[] {
  const permitted = (name: string) =>
    name === CODE_TOOL || allowed.some((entry) => namesTool(entry, name));
  const written = allowed.map((entry) => entry.written).join(', ') || 'no tools';
  return [
    handle.tools.restrict(
      handle.tools
        .visible()
        .map((tool) => tool.name)
        .filter((name) => !permitted(name)),
    ),
    handle.tools.guard((request) => {
      if (request.name === CODE_TOOL) return undefined;
      const why = refusal(allowed, request.name, request.arguments);
      return why === undefined
        ? undefined
        : { deny: `this turn runs /${command.name}, whose allowed-tools are ${written}: ${why}` };
    }),
    // Tools described ahead of calls (Code Mode's SDK) leave out the others too.
    handle.context.use(toolsAvailable, (input, next) =>
      next({ ...input, tools: input.tools.filter((tool) => permitted(tool.name)) }),
    ),
  ];
}
