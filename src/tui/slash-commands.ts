/**
 * The slash commands: each has a name, a one-line description for `/help` and completion, and
 * an action over the terminal's session, store and view; the workspace's custom commands follow
 * the built-in ones (a built-in name wins), then the MCP servers' prompts. Parsing is strict: an unknown command is reported
 * with the names that exist, never sent to the model.
 */
import { mcpPromptCommands } from '../mcp/prompt-commands.js';
import { planModeOf } from '../plan/install.js';
import { contextCommand } from './commands/context.js';
import type { SlashCommand, SlashContext } from './commands/contract.js';
import { customSlashCommands, shadowedLines, skillsCommand } from './commands/custom.js';
import { initCommand } from './commands/init.js';
import { mcpPromptSlashCommands } from './commands/mcp-prompts.js';
import { diffCommand, rewindCommand } from './commands/rewind.js';
import { SESSION_COMMANDS } from './commands/session.js';
import { VIEW_COMMANDS } from './commands/views.js';

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: 'help',
    description: 'list the commands and keys',
    async run(_args, { session, store }) {
      const line = (command: SlashCommand) =>
        `/${command.name}${command.usage ? ` ${command.usage}` : ''} — ${command.description}`;
      const custom = customSlashCommands(session, BUILTIN_NAMES);
      const shadowed = shadowedLines(session, BUILTIN_NAMES);
      await mcpPromptCommands(session.current.context);
      const prompts = mcpPromptSlashCommands(session, takenNames(custom));
      const lines = [
        ...SLASH_COMMANDS.map(line),
        ...(custom.length + shadowed.length > 0 ? ['commands of this workspace and yours:'] : []),
        ...custom.map(line),
        ...shadowed,
        ...(prompts.length > 0 ? ['prompts of the MCP servers:'] : []),
        ...prompts.map(line),
      ];
      store.add({
        kind: 'notice',
        tone: 'info',
        text: [
          ...lines,
          'esc interrupts · shift+tab switches mode · ctrl+o expands the transcript · ctrl+c twice or ctrl+d exits',
          'while it works: enter steers, ctrl+f queues a follow-up · @path and tab complete files · @server:uri attaches an MCP resource · !command runs a shell command · shift+enter or a trailing \\ starts a new line',
        ].join('\n'),
      });
    },
  },
  {
    name: 'new',
    description: 'start a new session in this workspace',
    async run(_args, { session, store }) {
      await session.switchTo(store);
      store.add({ kind: 'notice', tone: 'info', text: `new session ${session.sessionId}` });
    },
  },
  {
    name: 'plan',
    description: 'switch plan mode on or off',
    run(_args, { session, store }) {
      const plan = planModeOf(session.current);
      if (!plan) {
        store.add({ kind: 'notice', tone: 'warning', text: 'plan mode is not available here' });
        return;
      }
      plan.setMode(plan.mode === 'plan' ? 'default' : 'plan', 'user');
    },
  },
  {
    name: 'workflows',
    description: 'a live tree of the workflow runs (esc returns)',
    run(_args, { setView }) {
      setView('workflows');
    },
  },
  ...VIEW_COMMANDS,
  ...SESSION_COMMANDS,
  rewindCommand,
  diffCommand,
  contextCommand,
  skillsCommand,
  initCommand,
  {
    name: 'exit',
    description: 'leave (the session id is printed to resume it)',
    run(_args, { exit }) {
      exit();
    },
  },
];

const BUILTIN_NAMES: ReadonlySet<string> = new Set(SLASH_COMMANDS.map((command) => command.name));

function takenNames(custom: readonly SlashCommand[]): ReadonlySet<string> {
  return new Set([...BUILTIN_NAMES, ...custom.map((command) => command.name)]);
}

/**
 * The built-in commands, then the custom commands of `session`'s workspace no built-in hides,
 * then the prompts of its MCP servers (`/mcp__SERVER__PROMPT`).
 */
export function slashCommandsOf(session: SlashContext['session']): SlashCommand[] {
  const custom = customSlashCommands(session, BUILTIN_NAMES);
  return [...SLASH_COMMANDS, ...custom, ...mcpPromptSlashCommands(session, takenNames(custom))];
}

/** The commands whose name starts with what follows the slash, for completion. */
export function completeSlash(
  text: string,
  commands: readonly SlashCommand[] = SLASH_COMMANDS,
): SlashCommand[] {
  if (!text.startsWith('/') || text.includes(' ')) return [];
  const prefix = text.slice(1);
  return commands.filter((command) => command.name.startsWith(prefix));
}

/** Runs `/name args`; an unknown name is a warning listing the commands. */
export async function runSlash(text: string, context: SlashContext): Promise<void> {
  const [head = '', ...rest] = text.slice(1).split(' ');
  const commands = slashCommandsOf(context.session);
  const command = commands.find((candidate) => candidate.name === head);
  if (!command) {
    context.store.add({
      kind: 'notice',
      tone: 'warning',
      text: `unknown command /${head}; the commands are ${commands.map((entry) => `/${entry.name}`).join(' ')}`,
    });
    return;
  }
  try {
    await command.run(rest.join(' ').trim(), context);
  } catch (error) {
    context.store.add({
      kind: 'notice',
      tone: 'error',
      text: `/${command.name}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}
