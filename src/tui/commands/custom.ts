/**
 * The project's own slash commands in the terminal: each custom command (`.loom/commands/`,
 * `.claude/commands/`, `~/.loom/commands/`) as a slash command that runs its turn (see
 * project/command-turn.ts), and `/skills`, which lists the skills. A custom command whose name a
 * built-in command has is left out (the built-in runs) and `/help` says so.
 */
import { errorMessage } from '../../base/errors.js';
import { type CustomCommand, commandCatalogKey } from '../../project/command-contract.js';
import { runCommandTurn, shownPath } from '../../project/command-turn.js';
import { problemLine } from '../../project/markdown-front-matter.js';
import type { SetupOrigin } from '../../project/project-folders.js';
import { skillCatalogKey } from '../../project/skill-contract.js';
import type { TuiSession } from '../tui-session.js';
import type { SlashCommand } from './contract.js';

const ORIGINS: Record<SetupOrigin, string> = {
  project: '.loom',
  claude: '.claude',
  personal: 'personal',
};

/** The custom commands of the session's workspace whose names no built-in command has. */
export function customSlashCommands(
  session: TuiSession,
  builtinNames: ReadonlySet<string>,
): SlashCommand[] {
  const catalog = session.setup.runtime.root.find(commandCatalogKey);
  return (catalog?.list() ?? [])
    .filter((command) => !builtinNames.has(command.name))
    .map((command) => slashCommandOf(command));
}

/** `/help`'s lines for custom commands that a built-in one of the same name hides. */
export function shadowedLines(session: TuiSession, builtinNames: ReadonlySet<string>): string[] {
  const catalog = session.setup.runtime.root.find(commandCatalogKey);
  return (catalog?.list() ?? [])
    .filter((command) => builtinNames.has(command.name))
    .map(
      (command) =>
        `/${command.name} of ${shown(session, command.file)} is hidden by the built-in /${command.name}; rename the file to use it`,
    );
}

function slashCommandOf(command: CustomCommand): SlashCommand {
  return {
    name: command.name,
    ...(command.argumentHint ? { usage: command.argumentHint } : {}),
    description: `${command.description} (${ORIGINS[command.origin]})`,
    async run(args, { session, store }) {
      const handle = session.current;
      if (handle.agent.status !== 'idle') {
        store.add({
          kind: 'notice',
          tone: 'info',
          text: `/${command.name} runs once the current turn ends`,
        });
      }
      try {
        await runCommandTurn(
          handle,
          { command, args },
          {
            resolveModel: (spec) => session.setup.resolveModel(spec),
            start: (text) => handle.agent.prompt(text),
            workspace: session.setup.runtime.cwd,
            note: (line) => store.add({ kind: 'notice', tone: 'warning', text: line }),
          },
        );
      } catch (error) {
        store.add({ kind: 'notice', tone: 'error', text: errorMessage(error) });
      }
    },
  };
}

export const skillsCommand: SlashCommand = {
  name: 'skills',
  description: 'list the skills the model may load (.loom/skills, .claude/skills, ~/.loom/skills)',
  run(_args, { session, store }) {
    const catalog = session.setup.runtime.root.find(skillCatalogKey);
    const skills = catalog?.list() ?? [];
    const lines =
      skills.length === 0
        ? [
            'no skills: a skill is a folder with a SKILL.md in .loom/skills/, .claude/skills/ or ~/.loom/skills/',
          ]
        : [
            'skills:',
            ...skills.map(
              (skill) =>
                `  ${skill.name} — ${skill.description.replace(/\s+/g, ' ')} (${shown(session, skill.file)})`,
            ),
          ];
    for (const hidden of catalog?.hidden ?? []) {
      lines.push(
        `  ${hidden.name} of ${shown(session, hidden.file)} is hidden by ${shown(session, hidden.hiddenBy)}`,
      );
    }
    for (const problem of catalog?.problems ?? []) {
      lines.push(`  problem: ${problemLine({ ...problem, file: shown(session, problem.file) })}`);
    }
    store.add({ kind: 'notice', tone: 'info', text: lines.join('\n') });
  },
};

function shown(session: TuiSession, file: string): string {
  return shownPath(session.setup.runtime.cwd, file);
}
