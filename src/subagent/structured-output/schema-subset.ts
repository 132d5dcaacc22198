/**
 * The JSON Schema subset a structured child's `outputSchema` may use: the keywords the capture
 * tool's argument validation really enforces and that every provider accepts as tool parameters.
 * Anything outside it is reported, every problem with its JSON path; it must never be dropped or
 * loosened silently, because the schema becomes the capture tool's parameters verbatim.
 */
import type { JsonSchema } from '../../llm/contract.js';
import { SubagentError } from '../contract.js';

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const TEXT_ANNOTATIONS = new Set(['title', 'description', '$comment']);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

type SchemaObject = Record<string, unknown>;

interface Walk {
  problems: string[];
  /** The schemas on the path from the root, to report a cycle instead of recursing forever. */
  ancestors: Set<unknown>;
}

/** Every way `schema` leaves the supported subset, each prefixed by its path; empty when none. */
export function schemaProblems(schema: unknown, path = '$'): string[] {
  const walk: Walk = { problems: [], ancestors: new Set() };
  checkSchema(schema, path, true, walk);
  return walk.problems;
}

/**
 * Returns a private copy of `schema` after checking it; throws `UNSUPPORTED_SCHEMA` listing every
 * problem. `label` names the root in each path (the request field the schema came from).
 */
export function assertSupportedSchema(schema: unknown, label = 'outputSchema'): JsonSchema {
  const problems = schemaProblems(schema, label);
  if (problems.length > 0) {
    const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
    const list = problems.map((problem) => `- ${problem}`).join('\n');
    throw new SubagentError(
      'UNSUPPORTED_SCHEMA',
      `${label} is outside the supported JSON Schema subset (${count}):\n${list}`,
    );
  }
  return cloneSchema(schema as JsonSchema);
}

/** A deep copy, so a caller mutating its schema later cannot change what is enforced. */
export function cloneSchema(schema: JsonSchema): JsonSchema {
  return structuredClone(schema);
}

function checkSchema(schema: unknown, path: string, isRoot: boolean, walk: Walk): void {
  const { problems, ancestors } = walk;
  if (!isPlainObject(schema)) {
    problems.push(`${path}: must be a schema object, got ${describe(schema)}`);
    return;
  }
  if (ancestors.has(schema)) {
    problems.push(`${path}: the schema contains itself (a cycle)`);
    return;
  }
  ancestors.add(schema);
  const type = checkType(schema, path, problems);
  const typeIsBroken = Object.hasOwn(schema, 'type') && type === undefined;
  const requireType = (needed: string, keyword: string) => {
    if (type === needed || typeIsBroken) return;
    problems.push(`${path}: "${keyword}" is only supported with type "${needed}"`);
  };
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${path}.${keyword}`;
    switch (keyword) {
      case 'type':
        break;
      case 'properties':
        requireType('object', keyword);
        checkProperties(value, at, walk);
        break;
      case 'required':
        requireType('object', keyword);
        checkRequired(value, schema.properties, at, problems);
        break;
      case 'additionalProperties':
        requireType('object', keyword);
        if (typeof value !== 'boolean') {
          problems.push(`${at}: must be true or false (a schema here is unsupported)`);
        }
        break;
      case 'items':
        requireType('array', keyword);
        checkSchema(value, at, false, walk);
        break;
      case 'enum':
        checkEnum(value, type, at, problems);
        break;
      case 'const':
        checkScalar(value, type, at, problems);
        break;
      case 'examples':
        if (!Array.isArray(value)) problems.push(`${at}: must be an array`);
        else jsonValueProblems(value, at, problems);
        break;
      case 'default':
        jsonValueProblems(value, at, problems);
        break;
      case '$schema':
        if (!isRoot) problems.push(`${at}: "$schema" is allowed at the root only`);
        else if (typeof value !== 'string') problems.push(`${at}: must be a string`);
        break;
      default:
        if (TEXT_ANNOTATIONS.has(keyword)) {
          if (typeof value !== 'string') problems.push(`${at}: must be a string`);
        } else {
          problems.push(`${path}: unsupported keyword ${JSON.stringify(keyword)}`);
        }
    }
  }
  ancestors.delete(schema);
}

/** The declared type when it is a supported one; problems for any other `type`. */
function checkType(schema: SchemaObject, path: string, problems: string[]): string | undefined {
  if (!Object.hasOwn(schema, 'type')) return undefined;
  const type = schema.type;
  if (Array.isArray(type)) {
    problems.push(`${path}.type: a list of types is unsupported; use a single type`);
    return undefined;
  }
  if (typeof type !== 'string' || !TYPES.has(type)) {
    problems.push(`${path}.type: must be one of ${[...TYPES].join(', ')}, got ${describe(type)}`);
    return undefined;
  }
  return type;
}

function checkProperties(value: unknown, path: string, walk: Walk): void {
  if (!isPlainObject(value)) {
    walk.problems.push(`${path}: must be an object of schemas`);
    return;
  }
  for (const [name, schema] of Object.entries(value)) {
    checkSchema(schema, propertyPath(path, name), false, walk);
  }
}

function checkRequired(value: unknown, properties: unknown, path: string, problems: string[]) {
  if (!Array.isArray(value)) {
    problems.push(`${path}: must be an array of property names`);
    return;
  }
  const declared = isPlainObject(properties) ? properties : {};
  const seen = new Set<string>();
  value.forEach((name: unknown, index) => {
    const at = `${path}[${index}]`;
    if (typeof name !== 'string') problems.push(`${at}: must be a string, got ${describe(name)}`);
    else if (!Object.hasOwn(declared, name)) {
      problems.push(`${at}: ${JSON.stringify(name)} is not a declared property`);
    } else if (seen.has(name)) problems.push(`${at}: ${JSON.stringify(name)} is listed twice`);
    if (typeof name === 'string') seen.add(name);
  });
}

function checkEnum(value: unknown, type: string | undefined, path: string, problems: string[]) {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(`${path}: must be a non-empty array`);
    return;
  }
  value.forEach((entry: unknown, index) => {
    checkScalar(entry, type, `${path}[${index}]`, problems);
  });
}

/** Enum entries and const values are scalars, and of the declared type (else unsatisfiable). */
function checkScalar(value: unknown, type: string | undefined, path: string, problems: string[]) {
  const scalar =
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value));
  if (!scalar) {
    problems.push(
      `${path}: must be a string, finite number, boolean or null, got ${describe(value)}`,
    );
    return;
  }
  if (type !== undefined && !matchesType(value, type)) {
    problems.push(`${path}: ${JSON.stringify(value)} is not of type "${type}"`);
  }
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
    case 'string':
    case 'boolean':
      return typeof value === type;
    default:
      return false;
  }
}

function isPlainObject(value: unknown): value is SchemaObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function propertyPath(path: string, name: string): string {
  return IDENTIFIER.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'a non-plain object';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}

/** Annotation values travel as wire data: anything JSON cannot carry is named, never cloned. */
function jsonValueProblems(
  value: unknown,
  at: string,
  problems: string[],
  seen = new Set<object>(),
): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) problems.push(`${at}: must be a finite number`);
    return;
  }
  if (typeof value !== 'object') {
    problems.push(`${at}: must be a JSON value (found a ${typeof value})`);
    return;
  }
  if (seen.has(value)) {
    problems.push(`${at}: must not contain itself`);
    return;
  }
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) {
    problems.push(
      `${at}: must be a JSON value (found a ${value.constructor?.name ?? 'non-plain object'})`,
    );
    return;
  }
  seen.add(value);
  for (const [key, item] of Object.entries(value))
    jsonValueProblems(item, `${at}[${JSON.stringify(key)}]`, problems, seen);
  seen.delete(value);
}
