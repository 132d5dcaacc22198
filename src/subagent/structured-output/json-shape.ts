/**
 * Small total helpers for checking a schema as data: is it a plain object, is all of it JSON
 * (a schema travels to every route as JSON text), how to name a value and a path in a message.
 * Pure; they must never throw on a strange value.
 */

export type PlainObject = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `path.name`, or `path["odd name"]` when the name is not an identifier. */
export function propertyPath(path: string, name: string): string {
  return IDENTIFIER.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'a non-plain object';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}

/** Every place in `value` that JSON cannot carry, each with its path. */
export function jsonProblems(value: unknown, path: string): string[] {
  const problems: string[] = [];
  walk(value, path, problems, new Set());
  return problems;
}

function walk(value: unknown, path: string, problems: string[], ancestors: Set<object>): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) problems.push(`${path}: must be a finite number, got ${value}`);
    return;
  }
  if (typeof value !== 'object') {
    problems.push(`${path}: must be a JSON value (found ${describeValue(value)})`);
    return;
  }
  if (ancestors.has(value)) {
    problems.push(`${path}: contains itself (a cycle), which JSON cannot carry`);
    return;
  }
  if (!Array.isArray(value) && !isPlainObject(value)) {
    const name = (value as { constructor?: { name?: string } }).constructor?.name;
    problems.push(`${path}: must be a JSON value (found a ${name ?? 'non-plain object'})`);
    return;
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    // An index loop, not forEach: a hole in the array is a problem too.
    for (let index = 0; index < value.length; index += 1) {
      walk(value[index], `${path}[${index}]`, problems, ancestors);
    }
  } else {
    for (const [key, item] of Object.entries(value)) {
      walk(item, propertyPath(path, key), problems, ancestors);
    }
  }
  ancestors.delete(value);
}
