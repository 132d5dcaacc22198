/**
 * Turns whatever a workflow script throws into a bounded string for an error message: the stack
 * when there is one, else the message, else `String(value)`. It is total: it must never throw,
 * whatever the value (null, symbols, objects whose `toString` throws, proxies whose traps throw).
 */

export const UNRENDERABLE_THROWN_VALUE = '<unrenderable thrown value>';

/** Longer renderings are cut to this many characters plus a marker. */
export const RENDERED_THROWN_MAXIMUM_LENGTH = 4000;

export function renderThrown(value: unknown): string {
  const text =
    readStringProperty(value, 'stack') ??
    readStringProperty(value, 'message') ??
    convertToString(value) ??
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
