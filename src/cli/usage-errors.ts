/**
 * How the command line reports a usage mistake: ONE line on stderr that names it, adds "did you
 * mean" when a command or flag is a likely typo (src/core/closest-name.ts) and says where the
 * help is (`loom COMMAND --help`); never the whole help text. It only formats and writes; the
 * exit status (2) is main's.
 */
import type { Command } from 'commander';
import { didYouMean } from '../core/closest-name.js';

/** `loom workflow run`: the names from the root to `command`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) {
    names.unshift(current.name());
  }
  return names.join(' ');
}

function longFlags(command: Command): string[] {
  return [...command.options.map((option) => option.long ?? ''), '--help'].filter(Boolean);
}

function commandNames(command: Command): string[] {
  return [...command.commands.map((child) => child.name()), 'help'];
}

/** The line for an unknown command NAME under `command`. */
export function unknownCommandLine(command: Command, name: string): string {
  const path = commandPath(command);
  return `${path}: unknown command '${name}'${didYouMean(name, commandNames(command))}; ${path} --help lists the commands\n`;
}

/** Commander's error text (`error: unknown option '--jsn'\n(Did you mean --json?)`) as one line. */
export function usageLine(command: Command, text: string): string {
  const path = commandPath(command);
  const message = (text.split('\n')[0] ?? '').replace(/^error: /, '');
  const option = /^unknown option '([^']+)'$/.exec(message)?.[1];
  if (option !== undefined) {
    const bare = option.split('=')[0] ?? option;
    return `${path}: unknown option '${option}'${didYouMean(bare, longFlags(command))}; ${path} --help lists the options\n`;
  }
  const name = /^unknown command '([^']+)'$/.exec(message)?.[1];
  if (name !== undefined) return unknownCommandLine(command, name);
  return `${path}: ${message}; see ${path} --help\n`;
}

/** Makes `command` and every command under it report usage mistakes as `usageLine` does. */
export function reportUsageErrorsOnOneLine(command: Command): void {
  command.showHelpAfterError(false);
  command.showSuggestionAfterError(false);
  command.configureOutput({
    outputError: (text, write) => write(usageLine(command, text)),
  });
  for (const child of command.commands) reportUsageErrorsOnOneLine(child);
}
