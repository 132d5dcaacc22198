/**
 * A connected server's prompts as commands: `/mcp__SERVER__PROMPT args` gets the prompt
 * (`prompts/get`) with its arguments mapped to the prompt's declared ones (`name=value`, or
 * positional in declared order; the last positional one takes the rest of the line; quotes
 * group words), and its messages become the text of the turn's user message: text as it is,
 * embedded resources as their text, images, audio and blobs described (never their bytes), an
 * assistant message marked as such, the whole capped like a tool result. A missing required
 * argument, an unknown argument name, server or prompt is an McpError naming what there is.
 */
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { agentServers } from './agent-servers.js';
import { keepPrompts, listedPromptsOf, refreshPrompts } from './catalog-changes.js';
import { DEFAULT_OUTPUT_LIMIT, MCP_TOOL_PREFIX, McpError, mcpPromptCommand } from './contract.js';
import { resultText } from './result-text.js';
import { type ListedPrompt, listedPrompt } from './server-catalog.js';
import type { ServerConnection } from './server-connection.js';

export interface McpPromptCommand {
  /** `mcp__SERVER__PROMPT`, without the slash. */
  name: string;
  server: string;
  prompt: ListedPrompt;
  /** The arguments as a usage hint: `city [state]`. */
  usage: string;
}

/** `city [state]`: required arguments bare, optional ones in brackets. */
export function promptUsage(prompt: ListedPrompt): string {
  return prompt.arguments
    .map((argument) => (argument.required ? argument.name : `[${argument.name}]`))
    .join(' ');
}

/** Whether `text` looks like a prompt command (`/mcp__…`). */
export function isMcpPromptText(text: string): boolean {
  return text.trimStart().startsWith(`/${MCP_TOOL_PREFIX}`);
}

/**
 * The prompt commands of the servers the agent of `context` reaches (those declaring
 * `prompts`); a server whose listing fails is left out. Never throws.
 */
export async function mcpPromptCommands(context: Context): Promise<McpPromptCommand[]> {
  const servers = agentServers(context)?.list() ?? [];
  await Promise.all(servers.map((connection) => refreshPrompts(connection)));
  return cachedPromptCommands(context);
}

/** The prompt commands as last listed (catalog-changes.ts); synchronous, for completion. */
export function cachedPromptCommands(context: Context): McpPromptCommand[] {
  const servers = agentServers(context)?.list() ?? [];
  return servers.flatMap((connection) =>
    listedPromptsOf(connection).map((prompt) => ({
      name: mcpPromptCommand(connection.name, prompt.name),
      server: connection.name,
      prompt,
      usage: promptUsage(prompt),
    })),
  );
}

/** Splits an argument line into words; `"…"` and `'…'` keep spaces. */
export function argumentWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /(?:[^\s"']+|"[^"]*"|'[^']*')+/g;
  for (const match of line.matchAll(pattern)) {
    words.push(
      match[0].replace(/"([^"]*)"|'([^']*)'/g, (_all, double, single) => double ?? single),
    );
  }
  return words;
}

/** Maps `line` to `prompt`'s arguments as described above; throws McpError. */
export function promptArguments(
  command: string,
  prompt: ListedPrompt,
  line: string,
): Record<string, string> {
  const declared = prompt.arguments.map((argument) => argument.name);
  const values: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of argumentWords(line)) {
    const named = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(word);
    if (named && declared.includes(named[1] as string)) {
      values[named[1] as string] = named[2] as string;
    } else if (named && declared.length > 0 && !declared.includes(named[1] as string)) {
      throw new McpError(
        'MCP_TOOL_ERROR',
        `/${command} has no argument ${named[1]}; its arguments are ${declared.join(', ')}`,
      );
    } else {
      positional.push(word);
    }
  }
  const open = declared.filter((name) => values[name] === undefined);
  if (positional.length > 0 && open.length === 0) {
    throw new McpError(
      'MCP_TOOL_ERROR',
      `/${command} takes ${declared.length === 0 ? 'no arguments' : `only ${declared.join(', ')}`}, but was given ${positional.join(' ')}`,
    );
  }
  positional.forEach((word, index) => {
    const last = Math.min(index, open.length - 1);
    const name = open[last] as string;
    values[name] = values[name] === undefined ? word : `${values[name]} ${word}`;
  });
  const missing = prompt.arguments.filter(
    (argument) => argument.required && values[argument.name] === undefined,
  );
  if (missing.length > 0) {
    throw new McpError(
      'MCP_TOOL_ERROR',
      `/${command} needs ${missing.map((argument) => argument.name).join(', ')}: /${command} ${promptUsage(prompt)} (positional in that order, or NAME=VALUE)`,
    );
  }
  return values;
}

/** The messages of a prompt as the text of one user message, capped at `outputLimit`. */
export function promptText(result: GetPromptResult, outputLimit: number): string {
  const parts = (result.messages ?? []).map((message) => {
    const output = resultText({ content: [message.content] }, outputLimit);
    const text = typeof output === 'string' ? output : output.content;
    return message.role === 'assistant' ? `(the assistant said:)\n${text}` : text;
  });
  const output = resultText({ content: [{ type: 'text', text: parts.join('\n\n') }] }, outputLimit);
  return typeof output === 'string' ? output : output.content;
}

export interface ExpandedPrompt {
  server: string;
  prompt: string;
  arguments: Record<string, string>;
  /** The turn's user message. */
  text: string;
}

function findServer(servers: ServerConnection[], name: string) {
  // The longest server name that prefixes it: a server name may hold `__`.
  return servers
    .filter((connection) => name.startsWith(`${MCP_TOOL_PREFIX}${connection.name}__`))
    .sort((a, b) => b.name.length - a.name.length)[0];
}

/**
 * `text` (`/mcp__SERVER__PROMPT args`) expanded to its user message, or undefined when it is
 * not a prompt command. Throws McpError for an unknown server or prompt, bad arguments, or the
 * server's own error.
 */
export async function expandMcpPrompt(
  context: Context,
  text: string,
  signal?: AbortSignal,
): Promise<ExpandedPrompt | undefined> {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const command = match[1] as string;
  const line = match[2]?.trim() ?? '';
  const reachable = agentServers(context);
  const servers = (reachable?.list() ?? []).filter((connection) => connection.offersPrompts);
  const connection = findServer(servers, command);
  if (!connection) {
    throw new McpError(
      'MCP_TOOL_ERROR',
      `/${command} names no prompt of a connected MCP server; ${servers.length === 0 ? 'no connected server has prompts' : `servers with prompts: ${servers.map((server) => server.name).join(', ')}`} (\`loom mcp list\` shows them)`,
    );
  }
  const wanted = command.slice(`${MCP_TOOL_PREFIX}${connection.name}__`.length);
  const prompts = (await connection.listPrompts(signal)).map(listedPrompt);
  keepPrompts(connection, prompts);
  const prompt = prompts.find((candidate) => candidate.name === wanted);
  if (!prompt) {
    throw new McpError(
      'MCP_TOOL_ERROR',
      `MCP server ${connection.name} has no prompt ${wanted}; its prompts: ${prompts.map((candidate) => candidate.name).join(', ') || 'none'}`,
    );
  }
  const args = promptArguments(command, prompt, line);
  const result = await connection.getPrompt(prompt.name, args, signal);
  return {
    server: connection.name,
    prompt: prompt.name,
    arguments: args,
    text: promptText(result, reachable?.outputLimit ?? DEFAULT_OUTPUT_LIMIT),
  };
}

/**
 * Runs `/mcp__SERVER__PROMPT args` as a turn of `handle`: once the agent is idle the prompt is
 * fetched, `mcp/prompt-run` is logged and its text is sent with `start`. Resolves undefined
 * when `text` is not a prompt command; rejects, before anything is sent, when it cannot run.
 */
export async function runMcpPromptTurn<Result>(
  handle: AgentHandle,
  text: string,
  start: (text: string) => Promise<Result>,
): Promise<{ result: Result } | undefined> {
  if (!isMcpPromptText(text)) return undefined;
  const { agent } = handle;
  while (agent.status !== 'idle' || agent.inbox.followup > 0) await agent.whenIdle();
  const expanded = await expandMcpPrompt(handle.context, text);
  if (!expanded) return undefined;
  handle.log.append('mcp/prompt-run', {
    server: expanded.server,
    prompt: expanded.prompt,
    arguments: expanded.arguments,
  });
  return { result: await start(expanded.text) };
}
