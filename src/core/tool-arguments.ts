/**
 * Checks a model's tool-call arguments against the tool's `parameters` JSON Schema (every
 * violation reported, each problem qualified by its path). The dialect is the schema's
 * `$schema`: draft 2020-12 (also when absent) or draft-07, as foreign (MCP) tools declare them.
 * This is the one validation path for every tool, ours or foreign. It must never coerce, fill
 * defaults into or otherwise mutate the caller's value, and a broken schema is a reported
 * problem, never a throw. The validator (ajv) is loaded at the first check, so a start that
 * calls no tool never loads it.
 */
import type { Ajv as AjvDraft07 } from 'ajv';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { errorMessage } from '../base/errors.js';
import { loadLibrary } from './load-library.js';
import type { ToolDefinition } from './tool-contract.js';

export type ArgumentCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * `format` stays an annotation, as draft 2020-12 specifies by default (no format vocabulary is
 * bundled). Unknown keywords (vendor `x-*` extensions in foreign tool schemas) are tolerated;
 * a schema that breaks the meta-schema is not.
 */
let shared2020: Ajv2020 | undefined;
let sharedDraft07: AjvDraft07 | undefined;

const VALIDATOR_OPTIONS = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  logger: false,
} as const;

export type SchemaDialect = '2020-12' | 'draft-07';

/** The dialect a `$schema` value names; absent means 2020-12; undefined: one ajv is not set up for. */
export function schemaDialect(declared: unknown): SchemaDialect | undefined {
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return undefined;
  const address = declared.replace(/^https?:\/\//, '').replace(/#$/, '');
  if (address === 'json-schema.org/draft/2020-12/schema') return '2020-12';
  if (address === 'json-schema.org/draft-07/schema') return 'draft-07';
  return undefined;
}

function validator(dialect: SchemaDialect): Ajv2020 | AjvDraft07 {
  if (dialect === 'draft-07') {
    sharedDraft07 ??= new (loadLibrary('ajv').Ajv)(VALIDATOR_OPTIONS);
    return sharedDraft07;
  }
  shared2020 ??= new (loadLibrary('ajv/dist/2020.js').Ajv2020)(VALIDATOR_OPTIONS);
  return shared2020;
}

type Compiled = { validate: ValidateFunction } | { failure: string };
const compiled = new WeakMap<object, Compiled>();
const PREVIEW_LENGTH = 80;

export function validateToolArguments(tool: ToolDefinition, raw: unknown): ArgumentCheck {
  if (typeof raw === 'string') {
    return {
      ok: false,
      problems: [`arguments are not valid JSON: ${raw.slice(0, PREVIEW_LENGTH)}`],
    };
  }
  const schema = compile(tool);
  if ('failure' in schema) return { ok: false, problems: [schema.failure] };
  if (schema.validate(raw)) return { ok: true, value: raw };
  const problems = (schema.validate.errors ?? []).map(describeError);
  return { ok: false, problems: [...new Set(problems)] };
}

/** Why `tool`'s parameters schema cannot validate arguments; undefined when it can. */
export function parametersProblem(tool: ToolDefinition): string | undefined {
  const schema = compile(tool);
  return 'failure' in schema ? schema.failure : undefined;
}

function compile(tool: ToolDefinition): Compiled {
  const schema: unknown = tool.parameters;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { failure: `tool ${tool.name} has an invalid parameters schema: not an object` };
  }
  const cached = compiled.get(schema);
  if (cached) return cached;
  const attempt = compileSchema(schema as Record<string, unknown>);
  let result: Compiled;
  switch (attempt.kind) {
    case 'compiled':
      result = { validate: attempt.validate };
      break;
    case 'dialect':
      result = {
        failure: `tool ${tool.name} has a parameters schema of an unsupported dialect ${JSON.stringify(attempt.declared)} (draft-07 and 2020-12 are supported)`,
      };
      break;
    case 'invalid':
      result = { failure: `tool ${tool.name} has an invalid parameters schema: ${attempt.reason}` };
      break;
  }
  compiled.set(schema, result);
  return result;
}

/** Why ajv cannot compile `schema` (its own words); undefined when it can. */
export function schemaCompileProblem(schema: Record<string, unknown>): string | undefined {
  const attempt = compileSchema(schema);
  switch (attempt.kind) {
    case 'compiled':
      return undefined;
    case 'dialect':
      return `the dialect ${JSON.stringify(attempt.declared)} is not draft-07 or 2020-12`;
    case 'invalid':
      return `ajv cannot compile it: ${attempt.reason}`;
  }
}

type CompileAttempt =
  | { kind: 'compiled'; validate: ValidateFunction }
  | { kind: 'dialect'; declared: unknown }
  | { kind: 'invalid'; reason: string };

/**
 * Compiled schemas by their JSON text, so equal schemas in different objects (each child's
 * capture tool, a workflow's hundred agents with one schema) compile once. Bounded: the oldest
 * entry goes first. A schema JSON cannot write is compiled uncached.
 */
const byText = new Map<string, CompileAttempt>();
const MAX_CACHED_SCHEMAS = 128;

function compileSchema(schema: Record<string, unknown>): CompileAttempt {
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {
    text = undefined;
  }
  const cached = text === undefined ? undefined : byText.get(text);
  if (cached) return cached;
  const attempt = compileFresh(schema);
  if (text !== undefined) {
    if (byText.size >= MAX_CACHED_SCHEMAS) byText.delete(byText.keys().next().value as string);
    byText.set(text, attempt);
  }
  return attempt;
}

function compileFresh(schema: Record<string, unknown>): CompileAttempt {
  const { $schema: declared, ...body } = schema;
  const dialect = schemaDialect(declared);
  if (!dialect) return { kind: 'dialect', declared };
  const ajv = validator(dialect);
  try {
    return { kind: 'compiled', validate: ajv.compile(body) };
  } catch (error) {
    return { kind: 'invalid', reason: errorMessage(error) };
  } finally {
    ajv.removeSchema(body);
  }
}

function describeError(error: ErrorObject): string {
  const path = renderPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${path}: must NOT have additional property '${String(params.additionalProperty)}'`;
    case 'unevaluatedProperties':
      return `${path}: must NOT have unevaluated property '${String(params.unevaluatedProperty)}'`;
    case 'enum':
      return `${path}: must be one of ${renderValues(params.allowedValues)}`;
    case 'const':
      return `${path}: must be equal to ${renderValues([params.allowedValue])}`;
    case 'type':
      // ajv writes a list of types as "string,null".
      return `${path}: must be ${String(params.type).split(',').join(' or ')}`;
    default:
      return `${path}: ${error.message ?? `fails ${error.keyword}`}`;
  }
}

/** `/items/2/first~1name` becomes `arguments.items[2]["first/name"]`. */
function renderPath(pointer: string): string {
  if (pointer === '') return 'arguments';
  const segments = pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  return segments.reduce((path, segment) => {
    if (/^(0|[1-9]\d*)$/.test(segment)) return `${path}[${segment}]`;
    if (/^[A-Za-z_$][\w$]*$/.test(segment)) return `${path}.${segment}`;
    return `${path}[${JSON.stringify(segment)}]`;
  }, 'arguments');
}

function renderValues(values: unknown): string {
  if (!Array.isArray(values)) return String(values);
  return values.map((value) => JSON.stringify(value) ?? String(value)).join(', ');
}
