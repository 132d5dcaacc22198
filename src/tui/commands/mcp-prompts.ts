/**
 * The prompts of the MCP servers the session reaches as slash commands:
 * `/mcp__SERVER__PROMPT args` runs the prompt as its turn (mcp/prompt-commands.ts), its
 * arguments as the usage in `/help` and completion. Listed when the servers are ready and
 * again at each `/help`; a name a built-in or custom command has is left out.
 */
import { errorMessage } from '../../base/errors.js';
import { cachedPromptCommands, runMcpPromptTurn } from '../../mcp/prompt-commands.js';
import type { TuiSession } from '../tui-session.js';
import type { SlashCommand } from './contract.js';

export function mcpPromptSlashCommands(
  session: TuiSession,
  taken: ReadonlySet<string>,
): SlashCommand[] {
  return cachedPromptCommands(session.current.context)
    .filter((command) => !taken.has(command.name))
    .map((command) => ({
      name: command.name,
      ...(command.usage !== '' ? { usage: command.usage } : {}),
      description: `${command.prompt.description ?? `the prompt ${command.prompt.name}`} (MCP server ${command.server})`,
      async run(args, { session: current, store }) {
        const handle = current.current;
        if (handle.agent.status !== 'idle') {
          store.add({
            kind: 'notice',
            tone: 'info',
            text: `/${command.name} runs once the current turn ends`,
          });
        }
        try {
          await runMcpPromptTurn(handle, `/${command.name} ${args}`, (text) =>
            handle.agent.prompt(text),
          );
        } catch (error) {
          store.add({ kind: 'notice', tone: 'error', text: errorMessage(error) });
        }
      },
    }));
}
