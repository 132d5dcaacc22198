/**
 * A Markdown file's YAML front matter (between a first line `---` and the next `---` line) and
 * its body, as skills, custom commands and agent types are written. A problem is data naming the
 * file, the line when known and the field: it never throws. The YAML parser is loaded only when a
 * file has front matter.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../base/errors.js';
import { loadLibrary } from '../core/load-library.js';

/** One problem of a setup file, shown as `FILE[:LINE]: what is wrong`. */
export interface SetupProblem {
  file: string;
  line?: number;
  message: string;
}

export type FrontMatter =
  | {
      kind: 'parsed';
      fields: Record<string, unknown>;
      /** The 1-based line of the file each field's key is on. */
      lines: Record<string, number>;
      /** Each field's value as written (`[issue-number]`, not the list YAML reads). */
      written: Record<string, string>;
      body: string;
      /** Whether the file had front matter at all. */
      present: boolean;
    }
  | { kind: 'invalid'; problem: SetupProblem };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

/**
 * More alias expansions (`*name`) than front matter needs is a malformed or hostile file: a few
 * lines of nested aliases can expand to millions of values.
 */
const MAX_ALIASES = 20;

let yaml: typeof import('yaml') | undefined;

/**
 * Reads and parses `file`; a file that cannot be read or parsed adds one problem ending
 * "the WHAT is left out" and gives undefined.
 */
export function readFrontMatterFile(
  file: string,
  what: string,
  problems: SetupProblem[],
): Extract<FrontMatter, { kind: 'parsed' }> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push({
      file,
      message: `cannot be read: ${errorMessage(error)}; the ${what} is left out`,
    });
    return undefined;
  }
  const parsed = parseFrontMatter(text, file);
  if (parsed.kind === 'parsed') return parsed;
  problems.push({
    ...parsed.problem,
    message: `${parsed.problem.message}; the ${what} is left out`,
  });
  return undefined;
}

export function parseFrontMatter(text: string, file: string): FrontMatter {
  const opening = OPENING.exec(text);
  if (!opening) {
    return {
      kind: 'parsed',
      fields: {},
      lines: {},
      written: {},
      body: text.replace(/^\uFEFF/, ''),
      present: false,
    };
  }
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) {
    return {
      kind: 'invalid',
      problem: {
        file,
        line: 1,
        message: 'front matter opened with --- is never closed by a --- line',
      },
    };
  }
  const source = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, '');
  yaml ??= loadLibrary('yaml');
  const { LineCounter, parseDocument } = yaml;
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { lineCounter });
  const [error] = document.errors;
  if (error) {
    // Claude Code reads `argument-hint: [pr] [priority]`, which is not YAML, as text.
    const plain = plainFields(source);
    if (plain) return { kind: 'parsed', ...plain, body, present: true };
    // Lines of the file: the front matter starts on its second. An error at the end of the text
    // (an unclosed `[`) is shown on the front matter's last line, not on the closing `---`.
    const lastLine = Math.max(2, source.split(/\r?\n/).length);
    const line = error.linePos && Math.min(error.linePos[0].line + 1, lastLine);
    const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return {
      kind: 'invalid',
      problem: {
        file,
        ...(line !== undefined ? { line } : {}),
        message: `front matter is not valid YAML: ${message}`,
      },
    };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    // yaml throws here when the aliases expand past maxAliasCount.
    const message = /alias/i.test(errorMessage(error))
      ? `front matter expands YAML aliases (*name) more than ${MAX_ALIASES} times, more than a setup file needs: write the values out instead of repeating aliases`
      : `front matter cannot be read as YAML: ${errorMessage(error)}`;
    return { kind: 'invalid', problem: { file, message } };
  }
  if (value === null || value === undefined) {
    return { kind: 'parsed', fields: {}, lines: {}, written: {}, body, present: true };
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      kind: 'invalid',
      problem: { file, line: 2, message: 'front matter must be a mapping of fields (name: value)' },
    };
  }
  const lines: Record<string, number> = {};
  const written: Record<string, string> = {};
  const contents = document.contents;
  if (yaml.isMap(contents)) {
    for (const pair of contents.items) {
      const key = pair.key;
      if (!yaml.isScalar(key) || !key.range) continue;
      // The front matter starts on the file's second line.
      lines[String(key.value)] = lineCounter.linePos(key.range[0]).line + 1;
      const range = yaml.isNode(pair.value) ? pair.value.range : undefined;
      if (range) written[String(key.value)] = source.slice(range[0], range[1]).trim();
    }
  }
  return {
    kind: 'parsed',
    fields: value as Record<string, unknown>,
    lines,
    written,
    body,
    present: true,
  };
}

const PLAIN_LINE = /^([A-Za-z_][\w-]*):[ \t]*(.*?)[ \t]*$/;

/**
 * Front matter of `name: text` lines only (an indented line continues the value before it; blank
 * and `#` lines aside), each value as text; else undefined. What Claude Code reads where YAML
 * would refuse: `description: Use when: the user asks`, `argument-hint: [pr] [priority]`.
 */
function plainFields(source: string):
  | {
      fields: Record<string, string>;
      lines: Record<string, number>;
      written: Record<string, string>;
    }
  | undefined {
  const fields: Record<string, string> = {};
  const lines: Record<string, number> = {};
  let last: string | undefined;
  for (const [index, line] of source.split(/\r?\n/).entries()) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    if (/^[ \t]/.test(line) && last !== undefined) {
      fields[last] = `${fields[last]} ${line.trim()}`.trim();
      continue;
    }
    const match = PLAIN_LINE.exec(line);
    if (!match || Object.hasOwn(fields, match[1] as string)) return undefined;
    last = match[1] as string;
    fields[last] = match[2] as string;
    lines[last] = index + 2;
  }
  return { fields, lines, written: { ...fields } };
}
/** `FILE[:LINE]: message`. */
export function problemLine(problem: SetupProblem): string {
  return `${problem.file}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.message}`;
}

/** The fields of one parsed file with where each is, for problems that name file, line and field. */
export class FieldReader {
  private problems: SetupProblem[] = [];

  constructor(
    readonly file: string,
    private readonly fields: Record<string, unknown>,
    private readonly lines: Record<string, number>,
    private readonly writtenValues: Record<string, string> = {},
  ) {}

  /** Records a problem of field `name` (or of the file, without one). */
  problem(name: string | undefined, message: string): void {
    const line = name === undefined ? undefined : this.lines[name];
    this.problems.push({
      file: this.file,
      ...(line !== undefined ? { line } : {}),
      message: name === undefined ? message : `${name}: ${message}`,
    });
  }

  /** The problems recorded so far, which the reader then forgets. */
  take(): SetupProblem[] {
    const taken = this.problems;
    this.problems = [];
    return taken;
  }

  has(name: string): boolean {
    return this.fields[name] !== undefined && this.fields[name] !== null;
  }

  raw(name: string): unknown {
    return this.fields[name];
  }

  /** A field that must be text when present (a number or boolean reads as its text). */
  text(name: string): string | undefined {
    const value = this.fields[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    this.problem(name, `must be text, not ${Array.isArray(value) ? 'a list' : typeof value}`);
    return undefined;
  }

  /** A field's value as written in the file, for display text YAML would read otherwise. */
  written(name: string): string | undefined {
    return this.writtenValues[name];
  }

  /** The fields outside `known`, in the order written. */
  unknown(known: ReadonlySet<string>): string[] {
    return Object.keys(this.fields).filter((name) => !known.has(name));
  }
}
