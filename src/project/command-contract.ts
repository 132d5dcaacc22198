/**
 * Custom slash commands: `NAME.md` files in `.loom/commands/`, `.claude/commands/` and
 * `$LOOM_HOME/commands/` (a sub-folder makes `group:name`). `/NAME args` sends the body with
 * `$ARGUMENTS` and `$1`…`$9` filled in, as the human's message of a turn of its own; front
 * matter `model` and `allowed-tools` apply to that turn only. The terminal and the ACP server
 * offer them beside their own commands, which a custom command never shadows.
 */
import { LoomError } from '../base/errors.js';
import { serviceKey } from '../core/context.js';
import type { AllowedTool } from './command-allowed-tools.js';
import type { SetupProblem } from './markdown-front-matter.js';
import type { SetupOrigin } from './project-folders.js';

export interface CustomCommand {
  /** `fix`, or `group:name` for `group/name.md`. */
  name: string;
  /** One line for completion and help; default the body's first line. */
  description: string;
  /** `argument-hint`, shown after the name (`[issue-number]`). */
  argumentHint?: string;
  /** The model spec its turn runs on (Claude Code's `claude-…` ids read as `anthropic:…`). */
  model?: string;
  /** The tools its turn may use; absent: the session's tools. */
  allowedTools?: AllowedTool[];
  body: string;
  /** The file (absolute). */
  file: string;
  origin: SetupOrigin;
  /** Why it cannot run (a field Loom cannot honour), shown when it is used; absent when it can. */
  problem?: string;
}

export interface HiddenCommand {
  name: string;
  file: string;
  hiddenBy: string;
}

export interface CommandCatalog {
  /** One command per name (the project's hide the person's), sorted by name. */
  list(): CustomCommand[];
  /** The command called `name`, or undefined; never throws. */
  find(name: string): CustomCommand | undefined;
  readonly problems: readonly SetupProblem[];
  readonly hidden: readonly HiddenCommand[];
}

export const commandCatalogKey = serviceKey<CommandCatalog>('project/commands');

/** Logged in a session when a custom command starts its turn, before the message it sends. */
export interface CommandRunEvent {
  name: string;
  /** The command's file, as the person sees it (relative to the workspace when inside it). */
  file: string;
  /** What followed the name, as typed. */
  arguments: string;
  /** The model spec the turn runs on, when the command names one. */
  model?: string;
  /** `allowed-tools` as written, when given. */
  allowedTools?: string[];
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'command/run': CommandRunEvent;
  }
}

export type CommandErrorCode = 'COMMAND_UNUSABLE';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<CommandErrorCode, true> {}
}

/** `COMMAND_UNUSABLE`: a custom command whose file asks what Loom cannot do (an unknown model). */
export class CommandError extends LoomError<CommandErrorCode> {}
