/**
 * Turns whatever a workflow script throws into a bounded string for an error message: the stack
 * when there is one, else the message, else `String(value)` (a function by its name, never its
 * source). It is total: it must never throw, whatever the value (null, symbols, objects whose
 * `toString` throws, proxies whose traps throw). What the script author reads keeps only the
 * script's own stack frames, never the engine's.
 */

/** The file name the script is compiled under; its stack frames name it. */
export const SCRIPT_FILENAME = 'workflow-script.js';

/** The file name a nested workflow's body is compiled under, by its meta name. */
export function nestedScriptFilename(name: string): string {
  return `${name.replace(/[^\w.-]+/g, '-')}/${SCRIPT_FILENAME}`;
}

/**
 * `text` with each frame of a script compiled under `compiledAs` naming the script's own file
 * instead (`workflow-script.js:4:9` becomes `/work/review.js:4:9`): bodies keep the file's line
 * numbers (the header is blanked, not cut), so only the name changes. For what the user reads.
 */
export function placeScriptFrames(
  text: string,
  files: ReadonlyArray<{ compiledAs: string; path: string }>,
): string {
  let placed = text;
  for (const { compiledAs, path } of files) {
    const escaped = compiledAs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    placed = placed.replace(
      new RegExp(`(^|[\\s(])${escaped}:(?=\\d)`, 'g'),
      (_match, before: string) => `${before}${path}:`,
    );
  }
  return placed;
}

export const UNRENDERABLE_THROWN_VALUE = '<unrenderable thrown value>';

/** Longer renderings are cut to this many characters plus a marker. */
export const RENDERED_THROWN_MAXIMUM_LENGTH = 4000;

export function renderThrown(value: unknown): string {
  const text =
    readStringProperty(value, 'stack') ??
    readStringProperty(value, 'message') ??
    (typeof value === 'function' ? describeFunction(value) : convertToString(value)) ??
    UNRENDERABLE_THROWN_VALUE;
  return capLength(text);
}

function readStringProperty(value: unknown, key: 'stack' | 'message'): string | undefined {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') {
    return undefined;
  }
  try {
    const property: unknown = (value as Record<string, unknown>)[key];
    return typeof property === 'string' && property.length > 0 ? property : undefined;
  } catch {
    return undefined;
  }
}

/** A thrown value rendered for the script author: only the script's own stack frames. */
export function renderForScript(value: unknown): string {
  return scriptFrames(renderThrown(value));
}

/** A rendered stack without the engine's own frames: the author reads only script lines. */
export function scriptFrames(rendered: string): string {
  const lines = rendered.split('\n');
  const kept = lines.filter((line) => !/^\s+at /.test(line) || line.includes(SCRIPT_FILENAME));
  return kept.join('\n');
}

/** Gives an engine-made error, which the script may catch and read, only the script's frames. */
export function withScriptFrames<Thrown extends Error>(error: Thrown): Thrown {
  const stack = readStringProperty(error, 'stack');
  if (stack !== undefined) error.stack = scriptFrames(stack);
  return error;
}

function describeFunction(value: unknown): string {
  const name = readName(value);
  return name ? `[function ${name}]` : '[function]';
}

function readName(value: unknown): string | undefined {
  try {
    const name: unknown = (value as { name?: unknown }).name;
    return typeof name === 'string' && name.length > 0 ? name : undefined;
  } catch {
    return undefined;
  }
}

function convertToString(value: unknown): string | undefined {
  try {
    return String(value);
  } catch {
    return undefined;
  }
}

function capLength(text: string): string {
  if (text.length <= RENDERED_THROWN_MAXIMUM_LENGTH) return text;
  const omitted = text.length - RENDERED_THROWN_MAXIMUM_LENGTH;
  return `${text.slice(0, RENDERED_THROWN_MAXIMUM_LENGTH)}… (${omitted} more characters)`;
}
