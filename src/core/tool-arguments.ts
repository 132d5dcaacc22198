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
  let result: Compiled;
  const { $schema: declared, ...body } = schema as Record<string, unknown>;
  const dialect = schemaDialect(declared);
  if (!dialect) {
    result = {
      failure: `tool ${tool.name} has a parameters schema of an unsupported dialect ${JSON.stringify(declared)} (draft-07 and 2020-12 are supported)`,
    };
    compiled.set(schema, result);
    return result;
  }
  const ajv = validator(dialect);
  try {
    result = { validate: ajv.compile(body) };
  } catch (error) {
    result = {
      failure: `tool ${tool.name} has an invalid parameters schema: ${errorMessage(error)}`,
    };
  } finally {
    ajv.removeSchema(body);
  }
  compiled.set(schema, result);
  return result;
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
