/**
 * Parses JSON text and, when it is malformed, says where: V8's JSON.parse messages on Node 20
 * often give no position, so a small grammar walk finds the first offending line and column.
 * Also measures nesting without recursion, so a value too deep to copy is refused by name.
 * Pure; never throws for bad input.
 */

/** How deeply a JSON value handed to a script may nest; deeper copies overflow the stack. */
export const MAX_JSON_DEPTH = 256;

/** True when `value` has arrays or objects nested more than `limit` levels deep. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  const seen = new Set<object>();
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    if (depth + 1 > limit) return true;
    seen.add(item);
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

export type JsonTextResult =
  | { ok: true; value: unknown }
  | { ok: false; problem: string /** `line L, column C`, or empty when unknown. */; where: string };

export function parseJsonText(text: string): JsonTextResult {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    const located = locateJsonError(body);
    if (!located)
      return {
        ok: false,
        problem: error instanceof Error ? error.message : String(error),
        where: '',
      };
    const { line, column } = lineAndColumn(body, located.offset);
    return { ok: false, problem: located.problem, where: `line ${line}, column ${column}` };
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

class JsonSyntaxProblem {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/**
 * Finds where JSON text first breaks the grammar, because V8's JSON.parse does not always say
 * where. Returns undefined when it finds nothing (the caller then reports V8's message).
 */
function locateJsonError(text: string): JsonSyntaxProblem | undefined {
  let at = 0;
  const found = () => (at >= text.length ? 'end of input' : JSON.stringify(text[at]));
  const fail = (expected: string): never => {
    throw new JsonSyntaxProblem(at, `expected ${expected}, found ${found()}`);
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
  };
  const expectWord = (word: string) => {
    for (const letter of word) {
      if (text[at] !== letter) fail(`"${word}"`);
      at++;
    }
  };
  const readString = () => {
    at++;
    for (;;) {
      const character = text[at];
      if (character === undefined) fail("a closing '\"'");
      else if (character === '"') return void at++;
      else if (character < ' ') fail('no control character inside a string');
      else if (character !== '\\') at++;
      else if (text[at + 1] === 'u') {
        at += 2;
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4))) fail('4 hex digits after \\u');
        at += 4;
      } else if ('"\\/bfnrt'.includes(text[at + 1] ?? 'x')) at += 2;
      else {
        at++;
        fail('a valid escape after "\\"');
      }
    }
  };
  const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const readValue = (): void => {
    skipSpace();
    const character = text[at];
    if (character === '{') readSequence('}', () => readMember());
    else if (character === '[') readSequence(']', readValue);
    else if (character === '"') readString();
    else if (character === 't') expectWord('true');
    else if (character === 'f') expectWord('false');
    else if (character === 'n') expectWord('null');
    else {
      numberPattern.lastIndex = at;
      const number = numberPattern.exec(text);
      if (!number) fail('a value');
      at += (number as RegExpExecArray)[0].length;
    }
  };
  const readMember = () => {
    skipSpace();
    if (text[at] !== '"') fail('a property name in double quotes');
    readString();
    skipSpace();
    if (text[at] !== ':') fail("':'");
    at++;
    readValue();
  };
  const readSequence = (close: string, readItem: () => void) => {
    at++;
    skipSpace();
    if (text[at] === close) return void at++;
    for (;;) {
      readItem();
      skipSpace();
      if (text[at] === close) return void at++;
      if (text[at] !== ',') fail(`',' or '${close}'`);
      at++;
    }
  };
  try {
    readValue();
    skipSpace();
    if (at < text.length) fail('end of input after the JSON value');
  } catch (problem) {
    if (problem instanceof JsonSyntaxProblem) return problem;
    return undefined;
  }
  return undefined;
}
