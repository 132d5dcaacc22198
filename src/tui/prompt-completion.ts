/**
 * What the prompt can complete at the cursor: a slash command's name (the prompt starts with `/`)
 * or a workspace path after `@`, or an MCP server's resource after `@server:` (templates shown as
 * such), or the value of an MCP prompt's argument its server offers (`completion/complete`). Pure: it reads the editor's state and the lists it is given and
 * returns the range to replace with each choice; it never edits or lists anything itself.
 */

import type { SlashCommand } from './commands/contract.js';
import { mentionAt, rankPaths } from './path-completion.js';
import type { EditorState } from './prompt-editor.js';
import { completeSlash } from './slash-commands.js';

export interface CompletionChoice {
  /** Shown in the menu. */
  label: string;
  detail?: string;
  /** Put in place of the completed range. */
  replacement: string;
}

/** An MCP resource to complete after `@` (`server:uri`; a template marked as such). */
export interface ResourceCompletion {
  mention: string;
  name: string;
  template?: true;
}

/** A prompt argument's values, from its server: each replaces the word `start`..`end`. */
export interface ArgumentValues {
  start: number;
  end: number;
  argument: string;
  server: string;
  replacements: ReadonlyArray<{ value: string; replacement: string }>;
}

/** A template variable's values, from its server: each as the whole mention (`server:uri`). */
export interface TemplateValues {
  variable: string;
  server: string;
  mentions: readonly string[];
}

export interface Completion {
  kind: 'command' | 'path' | 'resource' | 'argument';
  /** The range of the text the choice replaces. */
  start: number;
  end: number;
  choices: CompletionChoice[];
}

export function completionAt(
  state: EditorState,
  /** The workspace's paths, asked only when an `@` mention is being typed. */
  listPaths: () => readonly string[] | undefined,
  /** The slash commands there are; default the built-in ones. */
  slashCommands?: readonly SlashCommand[],
  /** The MCP resources there are (`@server:uri`), offered once the mention holds a `:`. */
  resources?: () => readonly ResourceCompletion[],
  /** The values a server offers for the prompt argument at the cursor (`/mcp__S__P … word`). */
  argumentValues?: (before: string) => ArgumentValues | undefined,
  /** The mentions a server offers for the template variable a `@server:uri` is typed in. */
  templateValues?: (query: string) => TemplateValues | undefined,
): Completion | undefined {
  const before = state.text.slice(0, state.cursor);
  const values = argumentValues?.(before);
  if (values) {
    return {
      kind: 'argument',
      start: values.start,
      end: values.end,
      choices: values.replacements.map((entry) => ({
        label: entry.value,
        detail: `${values.argument} (MCP server ${values.server})`,
        replacement: entry.replacement,
      })),
    };
  }
  if (/^\/\S*$/.test(before)) {
    const commands = completeSlash(before, slashCommands);
    if (commands.length === 0) return undefined;
    const end = state.text.search(/\s|$/);
    return {
      kind: 'command',
      start: 0,
      end,
      choices: commands.map((command) => ({
        label: `/${command.name}${command.usage ? ` ${command.usage}` : ''}`,
        detail: command.description,
        replacement: `/${command.name} `,
      })),
    };
  }
  const mention = mentionAt(state.text, state.cursor);
  if (!mention) return undefined;
  if (mention.query.includes(':') && resources) {
    const found = resources().filter((resource) => resource.mention.startsWith(mention.query));
    if (found.length > 0) {
      return {
        kind: 'resource',
        start: mention.start,
        end: state.cursor,
        choices: found.map((resource) => ({
          label: `@${resource.mention}`,
          detail: resource.template ? `${resource.name} (template)` : resource.name,
          replacement: resource.template ? `@${resource.mention}` : `@${resource.mention} `,
        })),
      };
    }
    const filled = templateValues?.(mention.query);
    if (filled && filled.mentions.length > 0) {
      return {
        kind: 'resource',
        start: mention.start,
        end: state.cursor,
        choices: filled.mentions.map((text) => ({
          label: `@${text}`,
          detail: `${filled.variable} (MCP server ${filled.server})`,
          // A template with more variables after this one stays open for them.
          replacement: text.includes('{') ? `@${text}` : `@${text} `,
        })),
      };
    }
  }
  const paths = listPaths();
  if (paths === undefined) return undefined;
  const found = rankPaths(paths, mention.query);
  if (found.length === 0) return undefined;
  return {
    kind: 'path',
    start: mention.start,
    end: state.cursor,
    choices: found.map((path) => ({
      label: `@${path}`,
      replacement: path.endsWith('/') ? `@${path}` : `@${path} `,
    })),
  };
}
