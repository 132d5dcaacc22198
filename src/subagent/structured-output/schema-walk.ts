/**
 * Walks every schema inside an output schema and checks each keyword against the dialect's
 * table (`schema-keywords.ts`): a known keyword must hold the kind of value it takes, a refused
 * or unknown one is named with what to write instead. Collects the `$ref`s for the reference
 * check. The schema must already be JSON (`jsonProblems`); the walk never throws.
 */
import { assertNever } from '../../base/errors.js';
import type { SchemaDialect } from '../../core/tool-arguments.js';
import { describeValue, isPlainObject, type PlainObject, propertyPath } from './json-shape.js';
import {
  KEYWORDS,
  type KeywordValue,
  nearestKeyword,
  otherDialectAdvice,
  REFUSED_KEYWORDS,
} from './schema-keywords.js';
import type { SchemaIndex } from './schema-references.js';

const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];

interface Walk {
  dialect: SchemaDialect;
  problems: string[];
  index: SchemaIndex;
}

/** Every keyword problem of `root`, each with its path; `index` receives its references. */
export function keywordProblems(
  root: PlainObject,
  label: string,
  dialect: SchemaDialect,
  index: SchemaIndex,
): string[] {
  const walk: Walk = { dialect, problems: [], index };
  checkSchema(root, label, true, walk);
  return walk.problems;
}

function checkSchema(schema: unknown, path: string, isRoot: boolean, walk: Walk): void {
  if (typeof schema === 'boolean') return;
  if (!isPlainObject(schema)) {
    walk.problems.push(
      `${path}: must be a schema (an object, or true or false), got ${describeValue(schema)}`,
    );
    return;
  }
  for (const [keyword, value] of Object.entries(schema)) {
    const at = propertyPath(path, keyword);
    const known = KEYWORDS[keyword];
    if (known && (known.only === undefined || known.only === walk.dialect)) {
      if (keyword === '$schema' && !isRoot) {
        walk.problems.push(`${at}: "$schema" is allowed at the root only; remove it here`);
      } else checkValue(known.value, keyword, value, at, walk);
    } else if (!keyword.startsWith('x-')) {
      walk.problems.push(`${path}: ${refusal(keyword, known !== undefined, walk.dialect)}`);
    }
  }
}

/** Why `keyword` is refused and what to write instead; `x-` extensions are annotations. */
function refusal(keyword: string, otherDialect: boolean, dialect: SchemaDialect): string {
  const name = JSON.stringify(keyword);
  const refused = REFUSED_KEYWORDS[keyword];
  if (refused !== undefined) return `${name} is not supported: ${refused}`;
  if (otherDialect) {
    return `${name} is not a ${dialect} keyword: ${otherDialectAdvice(keyword, dialect)}`;
  }
  const nearest = nearestKeyword(keyword);
  const advice = nearest === undefined ? 'remove it' : `did you mean "${nearest}"?`;
  return `unknown keyword ${name}: it is not JSON Schema, so nothing would enforce it; ${advice}`;
}

function checkValue(kind: KeywordValue, keyword: string, value: unknown, at: string, walk: Walk) {
  const problem = (text: string) => walk.problems.push(`${at}: ${text}`);
  switch (kind) {
    case 'schema':
      checkSchema(value, at, false, walk);
      return;
    case 'schema-map':
      if (!isPlainObject(value))
        return problem(`must be an object of schemas, got ${describeValue(value)}`);
      for (const [name, entry] of Object.entries(value)) {
        if (keyword === 'patternProperties') checkPattern(name, propertyPath(at, name), walk);
        checkSchema(entry, propertyPath(at, name), false, walk);
      }
      return;
    case 'schema-list':
      if (!Array.isArray(value) || value.length === 0) {
        return problem(`must be a non-empty list of schemas, got ${describeValue(value)}`);
      }
      value.forEach((entry, index) => {
        checkSchema(entry, `${at}[${index}]`, false, walk);
      });
      return;
    case 'items':
      if (!Array.isArray(value)) return checkSchema(value, at, false, walk);
      if (walk.dialect === '2020-12') {
        return problem(
          'a list of item schemas is "prefixItems" in draft 2020-12; "items" takes one schema, for the items after them',
        );
      }
      return checkValue('schema-list', keyword, value, at, walk);
    case 'dependencies':
      if (!isPlainObject(value)) return problem(`must be an object, got ${describeValue(value)}`);
      for (const [name, entry] of Object.entries(value)) {
        if (Array.isArray(entry)) checkValue('names', keyword, entry, propertyPath(at, name), walk);
        else checkSchema(entry, propertyPath(at, name), false, walk);
      }
      return;
    case 'type':
      return checkType(value, at, walk);
    case 'enum':
      if (!Array.isArray(value) || value.length === 0) {
        return problem(`must be a non-empty list of values, got ${describeValue(value)}`);
      }
      return;
    case 'json':
      return;
    case 'json-list':
      if (!Array.isArray(value))
        return problem(`must be a list of values, got ${describeValue(value)}`);
      return;
    case 'count':
      if (!Number.isInteger(value) || (value as number) < 0) {
        return problem(`must be a whole number, 0 or more, got ${describeValue(value)}`);
      }
      return;
    case 'number':
      if (typeof value === 'boolean') {
        return problem(
          `must be the bound itself, a number (draft-04's true or false here is not draft-07 or 2020-12); got ${value}`,
        );
      }
      if (typeof value !== 'number')
        return problem(`must be a number, got ${describeValue(value)}`);
      return;
    case 'positive':
      if (typeof value !== 'number' || value <= 0) {
        return problem(`must be a number greater than 0, got ${describeValue(value)}`);
      }
      return;
    case 'boolean':
      if (typeof value !== 'boolean')
        return problem(`must be true or false, got ${describeValue(value)}`);
      return;
    case 'pattern':
      if (typeof value !== 'string')
        return problem(`must be a regular expression as a string, got ${describeValue(value)}`);
      return checkPattern(value, at, walk);
    case 'names':
      return checkNames(value, at, walk);
    case 'names-map':
      if (!isPlainObject(value))
        return problem(`must be an object of property name lists, got ${describeValue(value)}`);
      for (const [name, entry] of Object.entries(value))
        checkNames(entry, propertyPath(at, name), walk);
      return;
    case 'text':
      if (typeof value !== 'string')
        return problem(`must be a string, got ${describeValue(value)}`);
      if (keyword === '$id') walk.index.identified = true;
      if (keyword === '$anchor') walk.index.anchors.add(value);
      return;
    case 'ref':
      if (typeof value !== 'string')
        return problem(`must be a reference as a string, got ${describeValue(value)}`);
      walk.index.references.push({ path: at, reference: value });
      return;
    case 'dialect':
      // The root's dialect was read before the walk.
      return;
    default:
      return assertNever(kind, 'keyword value');
  }
}

function checkType(value: unknown, at: string, walk: Walk): void {
  const named = `one of ${TYPES.join(', ')}`;
  if (typeof value === 'string') {
    if (!TYPES.includes(value)) walk.problems.push(`${at}: must be ${named}, got "${value}"`);
    return;
  }
  if (!Array.isArray(value) || value.length === 0) {
    walk.problems.push(
      `${at}: must be a type (${named}) or a non-empty list of them, got ${describeValue(value)}`,
    );
    return;
  }
  const seen = new Set<unknown>();
  value.forEach((entry: unknown, index) => {
    if (typeof entry !== 'string' || !TYPES.includes(entry)) {
      walk.problems.push(`${at}[${index}]: must be ${named}, got ${describeValue(entry)}`);
    } else if (seen.has(entry)) {
      walk.problems.push(`${at}[${index}]: "${entry}" is listed twice`);
    }
    seen.add(entry);
  });
}

function checkNames(value: unknown, at: string, walk: Walk): void {
  if (!Array.isArray(value)) {
    walk.problems.push(`${at}: must be a list of property names, got ${describeValue(value)}`);
    return;
  }
  const seen = new Set<unknown>();
  value.forEach((name: unknown, index) => {
    if (typeof name !== 'string') {
      walk.problems.push(
        `${at}[${index}]: must be a property name (a string), got ${describeValue(name)}`,
      );
    } else if (seen.has(name)) {
      walk.problems.push(`${at}[${index}]: ${JSON.stringify(name)} is listed twice`);
    }
    seen.add(name);
  });
}

/** ajv compiles patterns as Unicode regular expressions; so does this check. */
function checkPattern(pattern: string, at: string, walk: Walk): void {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    walk.problems.push(
      `${at}: ${JSON.stringify(pattern)} is not a valid regular expression (${reason})`,
    );
  }
}
