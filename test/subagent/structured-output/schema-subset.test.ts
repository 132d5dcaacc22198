import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SubagentError } from '../../../src/subagent/contract.js';
import {
  assertSupportedSchema,
  cloneSchema,
  schemaProblems,
} from '../../../src/subagent/structured-output/schema-subset.js';

const everySupportedKeyword = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $comment: 'a report',
  title: 'Report',
  description: 'What the child found',
  examples: [{ summary: 'ok', tags: [] }],
  default: { summary: '', tags: [] },
  type: 'object',
  properties: {
    summary: { type: 'string', description: 'one line' },
    severity: { type: 'string', enum: ['low', 'high'] },
    score: { type: 'number', default: 0 },
    count: { type: 'integer', const: 3 },
    done: { type: 'boolean', examples: [true] },
    nothing: { type: 'null' },
    anything: { enum: ['a', 1, true, null] },
    'first name': { type: 'string' },
    tags: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  },
  required: ['summary', 'tags'],
  additionalProperties: false,
};

test('every supported keyword is accepted', () => {
  assert.deepEqual(schemaProblems(everySupportedKeyword), []);
  assert.deepEqual(assertSupportedSchema(everySupportedKeyword), everySupportedKeyword);
});

test('non-object roots are supported; a root that is not a schema object is not', () => {
  for (const schema of [
    { type: 'string' },
    { type: 'array', items: { type: 'integer' } },
    { enum: ['yes', 'no'] },
    { type: 'null' },
    {},
  ]) {
    assert.deepEqual(schemaProblems(schema), [], JSON.stringify(schema));
  }
  assert.deepEqual(schemaProblems('string'), ['$: must be a schema object, got "string"']);
  assert.deepEqual(schemaProblems(null), ['$: must be a schema object, got null']);
  assert.deepEqual(schemaProblems([]), ['$: must be a schema object, got an array']);
  assert.deepEqual(schemaProblems(new Date()), [
    '$: must be a schema object, got a non-plain object',
  ]);
});

test('an unsupported keyword is named with its path', () => {
  const schema = {
    type: 'object',
    properties: { tags: { type: 'array', items: { anyOf: [{ type: 'string' }] } } },
  };
  assert.deepEqual(schemaProblems(schema, 'outputSchema'), [
    'outputSchema.properties.tags.items: unsupported keyword "anyOf"',
  ]);
});

test('each unsupported keyword is reported', () => {
  const keywords: Array<[string, unknown]> = [
    ['anyOf', []],
    ['oneOf', []],
    ['allOf', []],
    ['not', {}],
    ['$ref', '#/x'],
    ['$defs', {}],
    ['pattern', 'a'],
    ['format', 'email'],
    ['minimum', 1],
    ['minLength', 1],
    ['prefixItems', []],
    ['if', {}],
    ['then', {}],
    ['patternProperties', {}],
  ];
  for (const [keyword, value] of keywords) {
    assert.deepEqual(
      schemaProblems({ type: 'string', [keyword]: value }),
      [`$: unsupported keyword "${keyword}"`],
      keyword,
    );
  }
});

test('misplaced and malformed supported keywords are problems', () => {
  const cases: Array<[unknown, string[]]> = [
    [{ type: ['string', 'null'] }, ['$.type: a list of types is unsupported; use a single type']],
    [
      { type: 'text' },
      ['$.type: must be one of object, array, string, number, integer, boolean, null, got "text"'],
    ],
    [{ type: 'string', properties: {} }, ['$: "properties" is only supported with type "object"']],
    [{ type: 'array', required: [] }, ['$: "required" is only supported with type "object"']],
    [{ properties: {} }, ['$: "properties" is only supported with type "object"']],
    [
      { type: 'object', items: { type: 'string' } },
      ['$: "items" is only supported with type "array"'],
    ],
    [
      { type: 'object', additionalProperties: { type: 'string' } },
      ['$.additionalProperties: must be true or false (a schema here is unsupported)'],
    ],
    [
      { type: 'array', items: [{ type: 'string' }] },
      ['$.items: must be a schema object, got an array'],
    ],
    [{ type: 'object', properties: [] }, ['$.properties: must be an object of schemas']],
    [{ type: 'object', required: 'a' }, ['$.required: must be an array of property names']],
    [
      { type: 'object', properties: { a: {} }, required: ['a', 'b', 3, 'a'] },
      [
        '$.required[1]: "b" is not a declared property',
        '$.required[2]: must be a string, got 3',
        '$.required[3]: "a" is listed twice',
      ],
    ],
    [{ enum: [] }, ['$.enum: must be a non-empty array']],
    [
      { enum: ['a', { b: 1 }, [2], Number.NaN] },
      [
        '$.enum[1]: must be a string, finite number, boolean or null, got an object',
        '$.enum[2]: must be a string, finite number, boolean or null, got an array',
        '$.enum[3]: must be a string, finite number, boolean or null, got NaN',
      ],
    ],
    [
      { type: 'integer', enum: [1, 1.5, 'x'] },
      ['$.enum[1]: 1.5 is not of type "integer"', '$.enum[2]: "x" is not of type "integer"'],
    ],
    [
      { const: { a: 1 } },
      ['$.const: must be a string, finite number, boolean or null, got an object'],
    ],
    [{ type: 'string', const: 2 }, ['$.const: 2 is not of type "string"']],
    [
      { type: 'string', title: 3, examples: 'x' },
      ['$.title: must be a string', '$.examples: must be an array'],
    ],
    [
      { type: 'array', items: { type: 'string', $schema: 'x' } },
      ['$.items.$schema: "$schema" is allowed at the root only'],
    ],
  ];
  for (const [schema, expected] of cases) {
    assert.deepEqual(schemaProblems(schema), expected, JSON.stringify(schema));
  }
});

test('several problems in one schema are reported together, each with its path', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, format: 'email' },
      'odd key': { type: ['string', 'null'] },
      list: { type: 'array', items: { oneOf: [] } },
    },
    required: ['name', 'missing'],
    patternProperties: {},
  };
  const problems = schemaProblems(schema, 'outputSchema');
  assert.deepEqual(problems, [
    'outputSchema.properties.name: unsupported keyword "minLength"',
    'outputSchema.properties.name: unsupported keyword "format"',
    'outputSchema.properties["odd key"].type: a list of types is unsupported; use a single type',
    'outputSchema.properties.list.items: unsupported keyword "oneOf"',
    'outputSchema.required[1]: "missing" is not a declared property',
    'outputSchema: unsupported keyword "patternProperties"',
  ]);
  assert.throws(
    () => assertSupportedSchema(schema),
    (error: unknown) => {
      assert.ok(error instanceof SubagentError);
      assert.equal(error.code, 'UNSUPPORTED_SCHEMA');
      assert.match(error.message, /\(6 problems\)/);
      for (const problem of problems) assert.ok(error.message.includes(problem), problem);
      return true;
    },
  );
});

test('a schema that contains itself is reported, not walked forever', () => {
  const schema: Record<string, unknown> = { type: 'array' };
  schema.items = schema;
  assert.deepEqual(schemaProblems(schema), ['$.items: the schema contains itself (a cycle)']);
});

test('the checked schema is a private copy the caller cannot drift', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  const checked = assertSupportedSchema(schema);
  schema.properties.a.type = 'number';
  assert.deepEqual(checked, { type: 'object', properties: { a: { type: 'string' } } });
  const copy = cloneSchema(checked);
  assert.notEqual(copy, checked);
  assert.deepEqual(copy, checked);
});

test('annotation values must be JSON: a function or a Map is named, never cloned', () => {
  const schema = {
    type: 'object',
    properties: { count: { type: 'number', default: () => 1 } },
    examples: [{ when: new Map() }, Number.NaN],
  };
  assert.deepEqual(schemaProblems(schema), [
    '$.properties.count.default: must be a JSON value (found a function)',
    '$.examples["0"]["when"]: must be a JSON value (found a Map)',
    '$.examples["1"]: must be a finite number',
  ]);
});
