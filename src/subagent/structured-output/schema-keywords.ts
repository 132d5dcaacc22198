/**
 * The JSON Schema keywords an output schema may use, per dialect, with the kind of value each
 * takes: the keywords of draft 2020-12 and draft-07 that ajv enforces, and the annotations that
 * need no enforcing. Also the keywords refused by name, each with what to write instead. Pure
 * data; a keyword absent from both tables is unknown, and nothing would enforce it.
 */
import type { SchemaDialect } from '../../core/tool-arguments.js';

export type KeywordValue =
  /** One schema: an object or a boolean. */
  | 'schema'
  /** An object whose every value is a schema (`properties`, `$defs`). */
  | 'schema-map'
  /** A non-empty array of schemas (`anyOf`, `prefixItems`). */
  | 'schema-list'
  /** `items`: a schema; in draft-07 also an array of schemas. */
  | 'items'
  /** draft-07's `dependencies`: each value a schema or a list of property names. */
  | 'dependencies'
  | 'type'
  /** A non-empty array of JSON values. */
  | 'enum'
  /** Any JSON value (`const`, `default`). */
  | 'json'
  /** An array of JSON values (`examples`). */
  | 'json-list'
  /** A non-negative integer (length, size and count bounds). */
  | 'count'
  | 'number'
  /** A number greater than 0 (`multipleOf`). */
  | 'positive'
  | 'boolean'
  /** A regular expression, as a string. */
  | 'pattern'
  /** An array of distinct strings (`required`). */
  | 'names'
  /** An object whose every value is an array of distinct strings (`dependentRequired`). */
  | 'names-map'
  | 'text'
  | 'ref'
  /** `$schema`: the root's dialect. */
  | 'dialect';

interface Keyword {
  value: KeywordValue;
  /** The dialects that define it; both when absent. */
  only?: SchemaDialect;
}

const both = (value: KeywordValue): Keyword => ({ value });
const in2020 = (value: KeywordValue): Keyword => ({ value, only: '2020-12' });
const inDraft07 = (value: KeywordValue): Keyword => ({ value, only: 'draft-07' });

// Built from pairs, not an object literal: a literal with a `then` key would be a thenable.
export const KEYWORDS: Readonly<Record<string, Keyword>> = Object.fromEntries([
  ['$schema', both('dialect')],
  ['$id', both('text')],
  ['$ref', both('ref')],
  ['$anchor', in2020('text')],
  ['$comment', both('text')],
  ['$defs', both('schema-map')],
  ['definitions', both('schema-map')],
  ['title', both('text')],
  ['description', both('text')],
  ['default', both('json')],
  ['examples', both('json-list')],
  ['deprecated', both('boolean')],
  ['readOnly', both('boolean')],
  ['writeOnly', both('boolean')],
  ['format', both('text')],
  ['contentMediaType', both('text')],
  ['contentEncoding', both('text')],
  ['contentSchema', in2020('schema')],
  ['type', both('type')],
  ['enum', both('enum')],
  ['const', both('json')],
  ['allOf', both('schema-list')],
  ['anyOf', both('schema-list')],
  ['oneOf', both('schema-list')],
  ['not', both('schema')],
  ['if', both('schema')],
  ['then', both('schema')],
  ['else', both('schema')],
  ['properties', both('schema-map')],
  ['patternProperties', both('schema-map')],
  ['additionalProperties', both('schema')],
  ['unevaluatedProperties', in2020('schema')],
  ['propertyNames', both('schema')],
  ['required', both('names')],
  ['dependentRequired', in2020('names-map')],
  ['dependentSchemas', in2020('schema-map')],
  ['dependencies', both('dependencies')],
  ['minProperties', both('count')],
  ['maxProperties', both('count')],
  ['items', both('items')],
  ['prefixItems', in2020('schema-list')],
  ['additionalItems', inDraft07('schema')],
  ['unevaluatedItems', in2020('schema')],
  ['contains', both('schema')],
  ['minContains', in2020('count')],
  ['maxContains', in2020('count')],
  ['minItems', both('count')],
  ['maxItems', both('count')],
  ['uniqueItems', both('boolean')],
  ['minLength', both('count')],
  ['maxLength', both('count')],
  ['pattern', both('pattern')],
  ['minimum', both('number')],
  ['maximum', both('number')],
  ['exclusiveMinimum', both('number')],
  ['exclusiveMaximum', both('number')],
  ['multipleOf', both('positive')],
] satisfies Array<[string, Keyword]>);

/** What to write instead of a keyword that no route can send as it is, or that is not JSON Schema. */
export const REFUSED_KEYWORDS: Readonly<Record<string, string>> = {
  $dynamicRef: 'no route resolves dynamic references; use "$ref" to a "$defs" entry',
  $dynamicAnchor: 'no route resolves dynamic references; use "$ref" to a "$defs" entry',
  $recursiveRef: 'no route resolves recursive references; use "$ref" to a "$defs" entry',
  $recursiveAnchor: 'no route resolves recursive references; use "$ref" to a "$defs" entry',
  $vocabulary: 'it belongs in a meta-schema, not in a schema; remove it',
  nullable:
    'it is OpenAPI, not JSON Schema; use a list of types ("type": ["string", "null"]) or "anyOf" with {"type": "null"}',
  discriminator:
    'it is OpenAPI, not JSON Schema; use "oneOf" whose branches each fix the tag property with "const"',
  example: 'it is OpenAPI, not JSON Schema; use "examples", a list of values',
  id: 'it is draft-04; use "$id"',
};

/** The advice for a keyword the schema's dialect lacks but the other dialect has. */
export function otherDialectAdvice(keyword: string, dialect: SchemaDialect): string {
  if (dialect === 'draft-07') {
    return `it is a draft 2020-12 keyword; remove "$schema" (2020-12 is the default) or write it the draft-07 way`;
  }
  switch (keyword) {
    case 'additionalItems':
      return 'it is draft-07; in draft 2020-12 list the leading items in "prefixItems" and use "items" for the rest';
    default:
      return 'it is draft-07; declare "$schema": "http://json-schema.org/draft-07/schema#" to use it';
  }
}

/** The known keyword closest to a misspelt one, when it is close enough to be the intent. */
export function nearestKeyword(keyword: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(keyword.length / 4)) + 1;
  for (const candidate of Object.keys(KEYWORDS)) {
    const distance = editDistance(keyword.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = left[row - 1] === right[column - 1] ? 0 : 1;
      current[column] = Math.min(
        (previous[column] as number) + 1,
        (current[column - 1] as number) + 1,
        (previous[column - 1] as number) + substitution,
      );
    }
    previous = current;
  }
  return previous[right.length] as number;
}
