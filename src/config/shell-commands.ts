/**
 * Splits a bash command line into its simple commands (`a && b`, `a; b`, `a | b`, subshells,
 * unquoted `$(…)`, newlines) with the shell-quote parser, each normalised to its words joined by
 * one space. What the parser cannot see into (a backquote or `$(` inside a word, `eval`,
 * `bash -c`, a command that runs another, a line it cannot parse) marks the line `opaque`, so a
 * caller can decide conservatively. Pure; never runs anything and never throws.
 */
import { type ParseEntry, parse } from 'shell-quote';

export interface ShellCommandLine {
  /** Each simple command's words (quotes removed, redirections kept) joined by one space. */
  commands: string[];
  /** The whole line with every run of whitespace collapsed to one space. */
  text: string;
  /** True when part of the line may run commands that `commands` does not show. */
  opaque: boolean;
}

/** Operators that end one simple command and start the next. */
const separators = new Set([
  '||',
  '&&',
  ';',
  ';;',
  ';&',
  ';;&',
  '|',
  '|&',
  '&',
  '(',
  ')',
  '<(',
  '>(',
]);

/** Words that open or continue a compound command rather than name a program. */
const reservedWords = new Set([
  '!',
  '{',
  '}',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'time',
]);

/** Programs whose arguments are themselves commands the parser does not split. */
const commandRunners = new Set([
  'eval',
  'exec',
  'command',
  'builtin',
  'env',
  'sudo',
  'doas',
  'nohup',
  'nice',
  'timeout',
  'xargs',
  'watch',
  'source',
  '.',
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
]);

const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function normaliseWhitespace(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

export function splitShellCommands(line: string): ShellCommandLine {
  const text = normaliseWhitespace(line);
  // shell-quote reads a newline as a space; in bash it ends a command, unless escaped.
  const source = line.replace(/\\\r?\n/g, ' ').replace(/\r?\n/g, ';');
  let entries: ParseEntry[];
  try {
    entries = parse(source, (name: string): string => `$${name}`);
  } catch {
    return { commands: [text], text, opaque: true };
  }
  const commands: string[] = [];
  let words: string[] = [];
  let opaque = false;
  const finish = () => {
    const start = words.findIndex((word) => !reservedWords.has(word) && !assignment.test(word));
    const program = start < 0 ? [] : words.slice(start);
    if (program.length > 0) {
      if (commandRunners.has(program[0] as string)) opaque = true;
      commands.push(program.join(' '));
    }
    words = [];
  };
  for (const entry of entries) {
    if (typeof entry === 'string') {
      if (entry.includes('`') || entry.includes('$(')) opaque = true;
      const word = normaliseWhitespace(entry);
      if (word !== '') words.push(word);
    } else if ('comment' in entry) {
      finish();
    } else if (entry.op === 'glob') {
      words.push(entry.pattern);
    } else if (separators.has(entry.op)) {
      // `$(` reaches us as a word ending in `$` followed by `(`: the `$` belongs to no command.
      const last = words[words.length - 1];
      if (entry.op === '(' && last?.endsWith('$')) {
        if (last === '$') words.pop();
        else words[words.length - 1] = last.slice(0, -1);
      }
      finish();
    } else {
      words.push(entry.op);
    }
  }
  finish();
  return { commands, text, opaque };
}
