/**
 * A prompt command's arguments, and a resource template's variables, completed by its server
 * (`completion/complete`, for a server that declares `completions`): while
 * `/mcp__SERVER__PROMPT args` is typed, the word at the cursor is the value of the argument it
 * maps to (`NAME=` typed, or the next positional one, as prompt-commands.ts maps them), and the
 * arguments before it go along as the request's context; while `@server:uri` is typed inside a
 * template's `{variable}`, the variables before it do.
 * Completion cannot wait for a server: the first look asks it and offers nothing; its answer is
 * kept and `onAnswer` runs, so the front end draws again and the next look offers it. A request
 * that fails offers nothing. Never throws.
 */
import type { Context } from '../core/context.js';
import { agentServers } from './agent-servers.js';
import type { ResourceChoice } from './catalog-changes.js';
import { argumentWords, cachedPromptCommands, type McpPromptCommand } from './prompt-commands.js';
import { cachedResourceChoices } from './resource-mentions.js';

/** The most values kept of one answer (the protocol's own cap). */
const MAX_VALUES = 100;
/** Answers kept before the oldest are forgotten. */
const MAX_ANSWERS = 200;

export interface ArgumentCompletion {
  /** The word completed: where it starts in the text, and where it ends (the cursor). */
  start: number;
  end: number;
  argument: string;
  server: string;
  /** What replaces the word for each value offered (`NAME=value` when typed so; quoted with spaces). */
  replacements: Array<{ value: string; replacement: string }>;
}

export interface Asked {
  server: string;
  prompt: string;
  argument: string;
  value: string;
  /** The arguments given before it. */
  given: Record<string, string>;
  /** Typed before the value in the word (`NAME=`), kept in the replacement. */
  prefix: string;
  start: number;
}

/**
 * What the text before the cursor asks to complete, if it is the argument of one of `commands`.
 */
export function argumentAt(
  commands: readonly McpPromptCommand[],
  before: string,
): Asked | undefined {
  const head = /^\/(mcp__\S+)\s+/.exec(before);
  if (!head) return undefined;
  const command = commands.find((entry) => entry.name === head[1]);
  if (!command) return undefined;
  const line = before.slice(head[0].length);
  const wordStart = line.search(/\S*$/);
  const word = line.slice(wordStart);
  // Inside quotes (an odd count of either before the cursor): a value with spaces, not offered.
  const odd = (quote: string) => line.split(quote).length % 2 === 0;
  if (/["']/.test(word) || odd('"') || odd("'")) return undefined;
  const declared = command.prompt.arguments.map((argument) => argument.name);
  const given: Record<string, string> = {};
  const positional: string[] = [];
  for (const earlier of argumentWords(line.slice(0, wordStart))) {
    const named = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(earlier);
    if (named && declared.includes(named[1] as string)) given[named[1] as string] = named[2] ?? '';
    else positional.push(earlier);
  }
  const named = /^([A-Za-z_][\w-]*)=(.*)$/.exec(word);
  let argument: string | undefined;
  let prefix = '';
  let value = word;
  if (named && declared.includes(named[1] as string)) {
    argument = named[1] as string;
    prefix = `${argument}=`;
    value = named[2] ?? '';
  }
  const open = declared.filter((name) => given[name] === undefined && name !== argument);
  // Positional words fill the open arguments in order; the word at the cursor takes the next.
  positional.forEach((earlier, index) => {
    const name = open[index];
    if (name !== undefined) given[name] = earlier;
  });
  if (argument === undefined) {
    if (positional.length >= open.length) return undefined;
    argument = open[positional.length];
  }
  if (argument === undefined) return undefined;
  return {
    server: command.server,
    prompt: command.prompt.name,
    argument,
    value,
    given,
    prefix,
    start: head[0].length + wordStart,
  };
}

function quoted(value: string): string {
  return /\s/.test(value) ? `"${value.replace(/"/g, '')}"` : value;
}

/** The variable of a resource template an `@server:` mention is being typed in. */
export interface TemplateAsked {
  server: string;
  uriTemplate: string;
  variable: string;
  value: string;
  /** The template's variables before it, as typed. */
  given: Record<string, string>;
  /** The mention up to the value (`server:` and the URI so far). */
  prefix: string;
  /** The template after the variable (its later variables still as `{name}`). */
  rest: string;
}

/**
 * The template variable that `query` (a mention after `@`: `server:uri…`) is being typed in, for
 * the first of `choices`' templates it fits (RFC 6570 simple `{name}` variables only).
 */
export function templateVariableAt(
  choices: readonly ResourceChoice[],
  query: string,
): TemplateAsked | undefined {
  for (const choice of choices) {
    if (!choice.template) continue;
    const colon = choice.mention.indexOf(':');
    const server = choice.mention.slice(0, colon);
    const uriTemplate = choice.mention.slice(colon + 1);
    const parts = choice.mention.split(/(\{[^}]*\})/).filter((part) => part !== '');
    if (parts.some((part) => /^\{[^A-Za-z0-9_]/.test(part))) continue;
    const given: Record<string, string> = {};
    let position = 0;
    for (const [index, part] of parts.entries()) {
      if (!part.startsWith('{')) {
        if (!query.startsWith(part, position)) break;
        position += part.length;
        continue;
      }
      const variable = part.slice(1, -1);
      const next = parts[index + 1];
      const end = next === undefined ? -1 : query.indexOf(next, position);
      if (end === -1) {
        const value = query.slice(position);
        if (/[/?#\s]/.test(value)) break;
        return {
          server,
          uriTemplate,
          variable,
          value,
          given,
          prefix: query.slice(0, position),
          rest: parts.slice(index + 1).join(''),
        };
      }
      given[variable] = query.slice(position, end);
      position = end;
    }
  }
  return undefined;
}

/**
 * Completion from the servers of the current session: a prompt command's argument, or the
 * variable of a resource template being typed in an `@server:` mention.
 */
export class McpCompleter {
  private readonly answers = new Map<string, string[] | 'asked'>();

  constructor(
    /** The scope of the agent whose servers complete (the current session's). */
    private readonly context: () => Context,
    /** Runs when an answer arrives; must not throw. */
    private readonly onAnswer: () => void,
  ) {}

  /** The values for the text before the cursor (`before`); undefined until the server answered. */
  promptArgument(before: string): ArgumentCompletion | undefined {
    const context = this.context();
    const asked = argumentAt(cachedPromptCommands(context), before);
    if (!asked) return undefined;
    const values = this.values(context, asked.server, {
      ref: { type: 'ref/prompt', name: asked.prompt },
      argument: { name: asked.argument, value: asked.value },
      given: asked.given,
    });
    if (!values) return undefined;
    return {
      start: asked.start,
      end: before.length,
      argument: asked.argument,
      server: asked.server,
      replacements: values.map((value) => ({
        value,
        replacement: `${asked.prefix}${quoted(value)} `,
      })),
    };
  }

  /**
   * The values of the template variable `query` (a mention after `@`) is being typed in, each
   * as the whole mention (`server:uri`, the rest of the template after it); undefined until
   * the server answered.
   */
  templateVariable(
    query: string,
  ): { variable: string; server: string; mentions: string[] } | undefined {
    const context = this.context();
    const asked = templateVariableAt(cachedResourceChoices(context), query);
    if (!asked) return undefined;
    const values = this.values(context, asked.server, {
      ref: { type: 'ref/resource', uri: asked.uriTemplate },
      argument: { name: asked.variable, value: asked.value },
      given: asked.given,
    });
    if (!values) return undefined;
    return {
      variable: asked.variable,
      server: asked.server,
      mentions: values.map((value) => `${asked.prefix}${value}${asked.rest}`),
    };
  }

  /** The server's answer to one request: asked the first time, kept, undefined until then. */
  private values(
    context: Context,
    server: string,
    request: {
      ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
      argument: { name: string; value: string };
      given: Record<string, string>;
    },
  ): string[] | undefined {
    const connection = agentServers(context)?.find(server);
    if (!connection?.offersCompletions) return undefined;
    const key = JSON.stringify([server, request]);
    const answer = this.answers.get(key);
    if (answer === undefined) {
      if (this.answers.size >= MAX_ANSWERS) this.answers.clear();
      this.answers.set(key, 'asked');
      const given =
        Object.keys(request.given).length > 0 ? { arguments: request.given } : undefined;
      connection
        .complete({
          ref: request.ref,
          argument: request.argument,
          ...(given ? { context: given } : {}),
        })
        .then(
          (values) => values.slice(0, MAX_VALUES),
          () => [],
        )
        .then((values) => {
          this.answers.set(key, values);
          if (values.length > 0) this.onAnswer();
        });
      return undefined;
    }
    return answer === 'asked' || answer.length === 0 ? undefined : answer;
  }
}
