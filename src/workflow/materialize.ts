/**
 * The value boundary: copies a value leaving the script's vm realm (meta, hook options, schemas,
 * the return value) into a plain JSON value of this realm. Everything JSON cannot carry is
 * rejected loud with its path; it must never drop or coerce a value silently, and never let
 * script data set a prototype. Getters run and their results cross (the script is trusted).
 * With a byte limit it counts the value's JSON bytes as it copies and stops at the limit, so a
 * huge value is refused without being copied whole.
 */
import vm from 'node:vm';
import { WorkflowError } from './contract.js';
import { renderForScript, withScriptFrames } from './render-thrown.js';

export interface MaterializeOptions {
  /** Names the value at the root of every message: `return value`, `agent() options`. */
  label: string;
  /** The prototypes a copied object or array may have; see `realmPrototypes`. */
  allowedPrototypes: ReadonlySet<object | null>;
  /** Deeper nesting is rejected instead of overflowing the stack; default 1000. */
  maximumDepth?: number;
  /**
   * The largest `JSON.stringify` of the value, in UTF-8 bytes; past it a fatal
   * `RESULT_TOO_LARGE` naming `limitName`. Absent: no limit.
   */
  maximumBytes?: number;
  /** The limit's name in that message; default `maxResultBytes`. */
  limitName?: string;
}

export const DEFAULT_MAXIMUM_DEPTH = 1000;

/** A path from the root, built only when a message needs it. */
interface Trail {
  parent: Trail | undefined;
  key: string | number;
}

interface Walk {
  allowedPrototypes: ReadonlySet<object | null>;
  maximumDepth: number;
  ancestors: Map<object, Trail>;
  maximumBytes: number;
  limitName: string;
  /** The JSON bytes of what was copied so far. */
  bytes: number;
}

/**
 * Returns a fresh JSON value: plain objects (this realm's `Object.prototype`), real arrays,
 * strings, finite numbers (-0 kept), booleans and null. A top-level `undefined` (a script that
 * returns nothing) becomes null; `undefined` anywhere inside the value is rejected. Throws a
 * fatal `WorkflowError('RESULT_UNSERIALIZABLE')` naming the path of the first offending value.
 */
export function materializeFromRealm(value: unknown, options: MaterializeOptions): unknown {
  if (value === undefined) return null;
  const walk: Walk = {
    allowedPrototypes: options.allowedPrototypes,
    maximumDepth: options.maximumDepth ?? DEFAULT_MAXIMUM_DEPTH,
    ancestors: new Map(),
    maximumBytes: options.maximumBytes ?? Number.POSITIVE_INFINITY,
    limitName: options.limitName ?? 'maxResultBytes',
    bytes: 0,
  };
  return copyValue(walk, value, { parent: undefined, key: options.label }, 0);
}

/** The realm's and this realm's `Object.prototype` and `Array.prototype`, plus null. */
export function realmPrototypes(context: vm.Context): Set<object | null> {
  const [objectPrototype, arrayPrototype] = vm.runInContext(
    '[Object.prototype, Array.prototype]',
    context,
  ) as [object, object];
  return new Set<object | null>([
    objectPrototype,
    arrayPrototype,
    null,
    Object.prototype,
    Array.prototype,
  ]);
}

/** `path` followed by `.key`, `["odd key"]` or `[index]`. */
export function appendPropertyPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function renderTrail(trail: Trail): string {
  if (trail.parent === undefined) return String(trail.key);
  return appendPropertyPath(renderTrail(trail.parent), trail.key);
}

function reject(trail: Trail, problem: string, cause?: unknown): WorkflowError {
  return withScriptFrames(
    new WorkflowError('RESULT_UNSERIALIZABLE', `${renderTrail(trail)}: ${problem}`, {
      fatal: true,
      cause,
    }),
  );
}

/** Counts `bytes` more JSON; past the limit the value is refused where it passed it. */
function count(walk: Walk, trail: Trail, bytes: number): void {
  walk.bytes += bytes;
  if (walk.bytes <= walk.maximumBytes) return;
  let root = trail;
  while (root.parent !== undefined) root = root.parent;
  throw withScriptFrames(
    new WorkflowError(
      'RESULT_TOO_LARGE',
      `${String(root.key)} is larger than ${walk.maximumBytes} bytes as JSON (${walk.limitName}); it passed the limit at ${renderTrail(trail)}. Return less: a summary, or the paths of files the agents wrote`,
      { fatal: true },
    ),
  );
}

/** A string's bytes in `JSON.stringify` output: escapes are measured, plain text is not copied. */
function jsonStringBytes(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these.
  return /[\u0000-\u001f"\\\ud800-\udfff]/.test(text)
    ? Buffer.byteLength(JSON.stringify(text))
    : Buffer.byteLength(text) + 2;
}

function attempt<Result>(trail: Trail, action: string, operation: () => Result): Result {
  try {
    return operation();
  } catch (error) {
    throw reject(trail, `${action} threw: ${renderForScript(error)}`, error);
  }
}

function copyValue(walk: Walk, value: unknown, trail: Trail, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      count(walk, trail, jsonStringBytes(value));
      return value;
    case 'boolean':
      count(walk, trail, value ? 4 : 5);
      return value;
    case 'number':
      if (Number.isFinite(value)) {
        count(walk, trail, String(value).length);
        return value;
      }
      throw reject(trail, `${value} cannot leave the workflow; JSON has no non-finite numbers`);
    case 'bigint':
      throw reject(trail, `a bigint (${value}n) cannot leave the workflow; use a string or number`);
    case 'symbol':
      throw reject(trail, `a symbol (${String(value)}) cannot leave the workflow`);
    case 'function':
      throw reject(trail, 'a function cannot leave the workflow');
    case 'undefined':
      throw reject(
        trail,
        typeof trail.key === 'number'
          ? 'undefined cannot leave the workflow inside an array; use null'
          : 'undefined cannot leave the workflow as a property value; omit the key or use null',
      );
    case 'object':
      if (value !== null) return copyObject(walk, value, trail, depth);
      count(walk, trail, 4);
      return null;
  }
}

function copyObject(walk: Walk, value: object, trail: Trail, depth: number): unknown {
  const earlier = walk.ancestors.get(value);
  if (earlier !== undefined) {
    throw reject(trail, `a cycle (back to ${renderTrail(earlier)}) cannot leave the workflow`);
  }
  if (depth >= walk.maximumDepth) {
    throw reject(
      trail,
      `nesting deeper than ${walk.maximumDepth} levels cannot leave the workflow`,
    );
  }
  const prototype = attempt(trail, 'reading its prototype', () => Object.getPrototypeOf(value));
  const isArray = attempt(trail, 'inspecting it', () => Array.isArray(value));
  if (!walk.allowedPrototypes.has(prototype)) {
    throw reject(trail, describeExotic(value, prototype));
  }
  if (!isArray && Array.isArray(prototype)) {
    throw reject(
      trail,
      'an object inheriting from an array cannot leave the workflow; use an array',
    );
  }
  rejectSymbolKeys(value, trail);
  walk.ancestors.set(value, trail);
  const copy = isArray
    ? copyArray(walk, value as unknown[], trail, depth)
    : copyPlainObject(walk, value, trail, depth);
  walk.ancestors.delete(value);
  return copy;
}

function copyArray(walk: Walk, value: unknown[], trail: Trail, depth: number): unknown[] {
  const length = value.length;
  // Brackets and commas; each element is at least one more byte, so a huge array that cannot
  // fit is refused before its keys are listed.
  count(walk, trail, length === 0 ? 2 : length + 1);
  if (walk.bytes + length > walk.maximumBytes) count(walk, trail, length);
  const keys = attempt(trail, 'listing its keys', () => Object.keys(value));
  if (keys.length > length) {
    const named = keys.find((key) => !/^(0|[1-9]\d*)$/.test(key) || Number(key) >= length);
    throw reject(
      { parent: trail, key: named ?? '' },
      'a named property on an array cannot leave the workflow; use an object',
    );
  }
  const copy: unknown[] = [];
  for (let index = 0; index < length; index += 1) {
    const child: Trail = { parent: trail, key: index };
    if (!Object.hasOwn(value, index)) {
      throw reject(child, 'a hole in a sparse array cannot leave the workflow; fill it with null');
    }
    const element = attempt(child, 'reading it', () => value[index]);
    copy.push(copyValue(walk, element, child, depth + 1));
  }
  return copy;
}

function copyPlainObject(walk: Walk, value: object, trail: Trail, depth: number): object {
  const copy = {};
  const keys = attempt(trail, 'listing its keys', () => Object.keys(value));
  // Braces, commas and colons; the keys and values count as they are copied.
  count(walk, trail, keys.length === 0 ? 2 : 2 * keys.length + 1);
  for (const key of keys) {
    const child: Trail = { parent: trail, key };
    count(walk, child, jsonStringBytes(key));
    const property = attempt(child, 'reading it', () => (value as Record<string, unknown>)[key]);
    Object.defineProperty(copy, key, {
      value: copyValue(walk, property, child, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function rejectSymbolKeys(value: object, trail: Trail): void {
  const symbols = attempt(trail, 'listing its symbol keys', () =>
    Object.getOwnPropertySymbols(value).filter((symbol) =>
      Object.prototype.propertyIsEnumerable.call(value, symbol),
    ),
  );
  const [first] = symbols;
  if (first !== undefined) {
    throw reject(trail, `a symbol key (${String(first)}) cannot leave the workflow`);
  }
}

/** What to do instead, by a value's tag; the isolated engine's prelude words it the same. */
export const EXOTIC_HINTS: Readonly<Record<string, string>> = {
  Date: 'convert it with toISOString()',
  Promise: 'await it first',
  Error: 'return its message as a string',
  String: 'use the primitive string',
  Number: 'use the primitive number',
  Boolean: 'use the primitive boolean',
};

function describeExotic(value: object, prototype: object | null): string {
  const kind = describeKind(value, prototype);
  const hint = EXOTIC_HINTS[kind.tag] ?? 'convert it to a plain object or array';
  return `${kind.text} cannot leave the workflow; ${hint}`;
}

function describeKind(value: object, prototype: object | null): { tag: string; text: string } {
  let tag = 'Object';
  try {
    tag = Object.prototype.toString.call(value).slice(8, -1);
  } catch {}
  if (['String', 'Number', 'Boolean'].includes(tag)) return { tag, text: `a boxed ${tag}` };
  if (tag === 'Array') return { tag, text: 'an array with a foreign prototype' };
  if (tag !== 'Object') return { tag, text: `${/^[AEIO]/.test(tag) ? 'an' : 'a'} ${tag}` };
  let constructorName = '';
  try {
    const owner: unknown = (prototype as { constructor?: unknown } | null)?.constructor;
    if (typeof owner === 'function') constructorName = owner.name;
  } catch {}
  if (constructorName === 'Object') return { tag, text: 'an object from another realm' };
  const text = constructorName
    ? `an instance of ${constructorName}`
    : 'an object with a non-plain prototype';
  return { tag, text };
}
