/**
 * A prompt command's arguments completed by its server (`completion/complete`, for a server that
 * declares `completions`): while `/mcp__SERVER__PROMPT args` is typed, the word at the cursor is
 * the value of the argument it maps to (`NAME=` typed, or the next positional one, as
 * prompt-commands.ts maps them), and the arguments before it go along as the request's context.
 * Completion cannot wait for a server: the first look asks it and offers nothing; its answer is
 * kept and `onAnswer` runs, so the front end draws again and the next look offers it. A request
 * that fails offers nothing. Never throws.
 */
import type { Context } from '../core/context.js';
import { agentServers } from './agent-servers.js';
import { argumentWords, cachedPromptCommands, type McpPromptCommand } from './prompt-commands.js';

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

export class PromptArgumentCompleter {
  private readonly answers = new Map<string, string[] | 'asked'>();

  constructor(
    /** The scope of the agent whose servers complete (the current session's). */
    private readonly context: () => Context,
    /** Runs when an answer arrives; must not throw. */
    private readonly onAnswer: () => void,
  ) {}

  /** What to offer for the text before the cursor (`before`); undefined until the server answered. */
  at(before: string): ArgumentCompletion | undefined {
    const context = this.context();
    const asked = argumentAt(cachedPromptCommands(context), before);
    if (!asked) return undefined;
    const connection = agentServers(context)?.find(asked.server);
    if (!connection?.offersCompletions) return undefined;
    const key = JSON.stringify([
      asked.server,
      asked.prompt,
      asked.argument,
      asked.value,
      asked.given,
    ]);
    const answer = this.answers.get(key);
    if (answer === undefined) {
      if (this.answers.size >= MAX_ANSWERS) this.answers.clear();
      this.answers.set(key, 'asked');
      const contextArguments =
        Object.keys(asked.given).length > 0 ? { arguments: asked.given } : undefined;
      connection
        .complete({
          ref: { type: 'ref/prompt', name: asked.prompt },
          argument: { name: asked.argument, value: asked.value },
          ...(contextArguments ? { context: contextArguments } : {}),
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
    if (answer === 'asked' || answer.length === 0) return undefined;
    return {
      start: asked.start,
      end: before.length,
      argument: asked.argument,
      server: asked.server,
      replacements: answer.map((value) => ({
        value,
        replacement: `${asked.prefix}${quoted(value)} `,
      })),
    };
  }
}
