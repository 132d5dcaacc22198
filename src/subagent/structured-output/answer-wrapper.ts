/**
 * The capture tool's parameters for an answer the routes would not take as a tool's parameters
 * as it is: OpenAI wants an object at the root, Anthropic refuses `anyOf`, `oneOf` and `allOf`
 * there. Such an answer goes in a `value` argument, its `$defs` move to the root beside it and
 * its references are rewritten to the new places, so the wrapper means exactly what the schema
 * meant. Pure: it must never change the schema it is given, nor loosen it.
 */
import type { JsonSchema } from '../../llm/contract.js';
import { ANSWER_ARGUMENT } from '../../llm/structured-answer.js';
import { KEYWORDS } from './schema-keywords.js';

/** Root keywords that make a schema more than the plain object a route takes as parameters. */
const ROOT_COMPOSITION = ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', 'enum', 'const'];
const DEFINITIONS = ['$defs', 'definitions'];

/** True when every route takes `schema` itself as a tool's parameters. */
export function takenAsParameters(schema: JsonSchema): boolean {
  if (schema.type !== 'object') return false;
  if (Object.hasOwn(schema, '$ref')) return false;
  return !ROOT_COMPOSITION.some((keyword) => Object.hasOwn(schema, keyword));
}

/** `{type: 'object', properties: {value: schema}, required: ['value'], ...}`, meaning the same. */
export function answerWrapper(schema: JsonSchema): JsonSchema {
  const { $schema: dialect, ...answer } = schema;
  const head: JsonSchema = dialect === undefined ? {} : { $schema: dialect };
  const wrap = (value: unknown, definitions: JsonSchema): JsonSchema => ({
    ...head,
    type: 'object',
    properties: { [ANSWER_ARGUMENT]: value },
    required: [ANSWER_ARGUMENT],
    additionalProperties: false,
    ...definitions,
  });
  // With its own `$id` the answer is a resource of its own: its references already resolve
  // inside it wherever it sits.
  if (Object.hasOwn(answer, '$id')) return wrap(answer, {});
  const body: JsonSchema = {};
  const definitions: JsonSchema = {};
  for (const [keyword, value] of Object.entries(answer)) {
    if (DEFINITIONS.includes(keyword)) definitions[keyword] = moved(value, 'schema-map');
    else body[keyword] = value;
  }
  return wrap(rewriteSchema(body), definitions);
}

const VALUE_POINTER = `#/properties/${ANSWER_ARGUMENT}`;

/** A local reference into the answer, as a reference into the wrapper; others unchanged. */
function rewriteReference(reference: string): string {
  if (reference === '#') return VALUE_POINTER;
  if (!reference.startsWith('#/')) return reference;
  const first = reference.slice(2).split('/')[0];
  if (first !== undefined && DEFINITIONS.includes(first)) return reference;
  return `${VALUE_POINTER}${reference.slice(1)}`;
}

function rewriteSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  // A nested resource resolves its own references; nothing under it points at the answer's root.
  if (Object.hasOwn(schema, '$id')) return schema;
  const rewritten: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const kind = KEYWORDS[keyword]?.value;
    if (keyword === '$ref' && typeof value === 'string')
      rewritten[keyword] = rewriteReference(value);
    else rewritten[keyword] = kind === undefined ? value : moved(value, kind);
  }
  return rewritten;
}

/** A keyword's value with the schemas inside it rewritten. */
function moved(value: unknown, kind: string): unknown {
  switch (kind) {
    case 'schema':
      return rewriteSchema(value);
    case 'items':
    case 'schema-list':
      return Array.isArray(value) ? value.map(rewriteSchema) : rewriteSchema(value);
    case 'schema-map':
    case 'dependencies':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      return Object.fromEntries(
        Object.entries(value).map(([name, entry]) => [
          name,
          Array.isArray(entry) ? entry : rewriteSchema(entry),
        ]),
      );
    default:
      return value;
  }
}
