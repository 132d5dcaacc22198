/**
 * Placeholders in scripted answers: `{{prompt}}`, `{{1}}`…`{{9}}`, `{{lastToolResult}}`,
 * `{{lastToolResult.PATH}}` (the value at a dotted path of the last tool result parsed as JSON)
 * and `{{images}}` (the image parts the request carries, as the model received them).
 * Checking finds malformed paths when a file loads; filling in never throws: a path that cannot
 * be read becomes a `problem` the scripted model turns into the request's error part.
 */

export interface SubstitutionValues {
  prompt: string;
  captures: ReadonlyArray<string | undefined>;
  /** The content of the latest tool message; undefined when the request has none. */
  lastToolResult: string | undefined;
  /** The request's image parts, one `image/png 64x48 2048 bytes sha256 …` each, `; ` between; `no images`. */
  images: string;
}

/** A placeholder that could not be filled in, and the field (JSON path) it is in. */
export interface SubstitutionProblem {
  field: string;
  message: string;
}

const placeholder = /\{\{(prompt|images|lastToolResult(?:\.[^{}]*)?|[1-9])\}\}/g;
const wholePlaceholder = /^\{\{lastToolResult\.([^{}]*)\}\}$/;
const pathPrefix = 'lastToolResult.';
const arrayIndex = /^(?:0|[1-9]\d*)$/;

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const keyField = (field: string, key: string): string => (field ? `${field}.${key}` : key);

/** Why PATH (the part after `lastToolResult.`) is malformed, or undefined when it is fine. */
function pathSyntaxProblem(path: string): string | undefined {
  const segments = path.split('.');
  if (segments.some((segment) => segment === '')) return 'a path segment is empty';
  if (segments.some((segment) => /\s/.test(segment))) return 'a path segment contains white space';
  return undefined;
}

/** Every malformed `{{lastToolResult.PATH}}` in the strings inside `value`, with its field. */
export function findMalformedPaths(value: unknown, field: string): SubstitutionProblem[] {
  if (typeof value === 'string') {
    const problems: SubstitutionProblem[] = [];
    for (const [whole, key] of value.matchAll(placeholder)) {
      if (!key?.startsWith(pathPrefix)) continue;
      const problem = pathSyntaxProblem(key.slice(pathPrefix.length));
      if (problem) problems.push({ field, message: `malformed placeholder ${whole}: ${problem}` });
    }
    return problems;
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => findMalformedPaths(item, `${field}[${index}]`));
  }
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    findMalformedPaths(item, keyField(field, key)),
  );
}

type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

/** Fills in the placeholders of one answer; the first value that cannot be read is `problem`. */
export class Substitution {
  problem: SubstitutionProblem | undefined;
  private parsed: Parsed | undefined;

  constructor(private readonly values: SubstitutionValues) {}

  /** Fills in a text field; a path's value is rendered as text (JSON when not a string). */
  text(text: string, field: string): string {
    return text.replace(placeholder, (whole, key: string) => {
      if (key === 'prompt') return this.values.prompt;
      if (key === 'images') return this.values.images;
      if (key === 'lastToolResult') return this.values.lastToolResult ?? '';
      if (key.startsWith(pathPrefix)) {
        const value = this.read(whole, key.slice(pathPrefix.length), field);
        return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
      }
      return this.values.captures[Number(key)] ?? '';
    });
  }

  /**
   * Fills in every string inside a JSON value. A string that is exactly one
   * `{{lastToolResult.PATH}}` becomes the value at PATH with its own type.
   */
  deep(value: unknown, field: string): unknown {
    if (typeof value === 'string') {
      const whole = wholePlaceholder.exec(value);
      return whole ? this.read(value, whole[1] ?? '', field) : this.text(value, field);
    }
    if (Array.isArray(value)) {
      return value.map((item, index) => this.deep(item, `${field}[${index}]`));
    }
    if (!isObject(value)) return value;
    const entries = Object.entries(value).map(([key, item]) => [
      key,
      this.deep(item, keyField(field, key)),
    ]);
    return Object.fromEntries(entries);
  }

  private read(placeholderText: string, path: string, field: string): unknown {
    const fail = (reason: string): null => {
      this.problem ??= { field, message: `cannot fill in ${placeholderText}: ${reason}` };
      return null;
    };
    const syntax = pathSyntaxProblem(path);
    if (syntax) return fail(syntax);
    this.parsed ??= parseResult(this.values.lastToolResult);
    if (!this.parsed.ok) return fail(this.parsed.reason);
    let current = this.parsed.value;
    const walked: string[] = [];
    for (const segment of path.split('.')) {
      const here = walked.length === 0 ? 'the last tool result' : `"${walked.join('.')}"`;
      if (Array.isArray(current)) {
        const index = arrayIndex.test(segment) ? Number(segment) : undefined;
        if (index === undefined) return fail(`${here} is an array and "${segment}" is no index`);
        if (index >= current.length) {
          return fail(`${here} has ${current.length} entries, so no index ${index}`);
        }
        current = current[index];
      } else if (isObject(current)) {
        if (!Object.hasOwn(current, segment)) return fail(`${here} has no key "${segment}"`);
        current = current[segment];
      } else {
        return fail(`${here} is ${describe(current)}, not an object or array`);
      }
      walked.push(segment);
    }
    return current;
  }
}

function parseResult(content: string | undefined): Parsed {
  if (content === undefined) return { ok: false, reason: 'the request has no tool result yet' };
  try {
    return { ok: true, value: JSON.parse(content) };
  } catch {
    return { ok: false, reason: 'the last tool result is not JSON' };
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}
