import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema } from '../../../src/llm/contract.js';
import { captureShape } from '../../../src/subagent/structured-output/capture-instructions.js';
import { deliveredValueChecker } from '../../../src/subagent/structured-output/delivered-value.js';
import { assertSupportedSchema } from '../../../src/subagent/structured-output/output-schema.js';

/** The problems of each value against `schema`, through the capture tool's own parameters. */
function check(schema: JsonSchema, ...values: unknown[]): string[][] {
  const problems = deliveredValueChecker(assertSupportedSchema(schema));
  return values.map((value) => problems(value));
}

test('anyOf and a type list with null accept exactly their branches, naming the path otherwise', () => {
  const schema = {
    type: 'object',
    properties: {
      reviewer: { type: ['string', 'null'] },
      fix: {
        anyOf: [
          { type: 'null' },
          { type: 'object', properties: { patch: { type: 'string' } }, required: ['patch'] },
        ],
      },
    },
    required: ['reviewer', 'fix'],
    additionalProperties: false,
  };
  const [nulls, values, wrong] = check(
    schema,
    { reviewer: null, fix: null },
    { reviewer: 'ana', fix: { patch: 'diff' } },
    { reviewer: 7, fix: { patch: 3 } },
  );
  assert.deepEqual(nulls, []);
  assert.deepEqual(values, []);
  assert.deepEqual(wrong, [
    'arguments.reviewer: must be string or null',
    'arguments.fix: must be null',
    'arguments.fix.patch: must be string',
    'arguments.fix: must match a schema in anyOf',
  ]);
});

test('a recursive $ref validates every level', () => {
  const schema = {
    type: 'object',
    properties: { tree: { $ref: '#/$defs/node' } },
    required: ['tree'],
    $defs: {
      node: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/$defs/node' } },
        },
        required: ['name'],
      },
    },
  };
  const [good, bad] = check(
    schema,
    { tree: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] } },
    { tree: { name: 'a', children: [{ name: 'b', children: [{ name: 4 }] }] } },
  );
  assert.deepEqual(good, []);
  assert.deepEqual(bad, ['arguments.tree.children[0].children[0].name: must be string']);
});

test('enum and const of objects, bounds and pattern are enforced', () => {
  const schema = {
    type: 'object',
    properties: {
      mode: { const: { strict: true } },
      level: { enum: [{ n: 1 }, [2], 'three'] },
      score: { type: 'number', minimum: 0, maximum: 1 },
      slug: { type: 'string', pattern: '^[a-z-]+$', maxLength: 8 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2, uniqueItems: true },
    },
  };
  const [good, bad] = check(
    schema,
    { mode: { strict: true }, level: [2], score: 0.5, slug: 'a-b', tags: ['x'] },
    {
      mode: { strict: false },
      level: { n: 2 },
      score: 2,
      slug: 'Not OK!!!',
      tags: ['x', 'x', 'y'],
    },
  );
  assert.deepEqual(good, []);
  assert.deepEqual(bad, [
    'arguments.mode: must be equal to {"strict":true}',
    'arguments.level: must be one of {"n":1}, [2], "three"',
    'arguments.score: must be <= 1',
    'arguments.slug: must NOT have more than 8 characters',
    'arguments.slug: must match pattern "^[a-z-]+$"',
    'arguments.tags: must NOT have more than 2 items',
    'arguments.tags: must NOT have duplicate items (items ## 1 and 0 are identical)',
  ]);
});

test('format is sent as an annotation and not enforced, as in every tool schema Loom validates', () => {
  const [problems] = check(
    { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } },
    { at: 'soon' },
  );
  assert.deepEqual(problems, []);
});

test('a root the routes would refuse as parameters travels in value, its $defs and references moved with it', () => {
  const schema = {
    anyOf: [{ type: 'null' }, { $ref: '#/$defs/list' }, { $ref: '#/anyOf/0' }],
    $defs: { list: { type: 'array', items: { anyOf: [{ type: 'string' }, { $ref: '#' }] } } },
  };
  const shape = captureShape(assertSupportedSchema(schema));
  assert.equal(shape.wrapped, true);
  assert.deepEqual(shape.parameters, {
    type: 'object',
    properties: {
      value: {
        anyOf: [{ type: 'null' }, { $ref: '#/$defs/list' }, { $ref: '#/properties/value/anyOf/0' }],
      },
    },
    required: ['value'],
    additionalProperties: false,
    $defs: {
      list: {
        type: 'array',
        items: { anyOf: [{ type: 'string' }, { $ref: '#/properties/value' }] },
      },
    },
  });
  const [good, nested, bad] = check(schema, null, ['a', ['b', null]], ['a', [3]]);
  assert.deepEqual(good, []);
  assert.deepEqual(nested, []);
  assert.ok(bad?.includes('arguments.value[1][0]: must be string'), bad?.join('\n'));
});

test('which roots are wrapped: anything but a plain object schema', () => {
  const wrapped = (schema: JsonSchema) => captureShape(assertSupportedSchema(schema)).wrapped;
  assert.equal(wrapped({ type: 'object', properties: { a: { type: 'string' } } }), false);
  assert.equal(
    wrapped({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } }),
    false,
  );
  const wrapperShaped = {
    type: 'object',
    properties: { value: { type: 'string' } },
    required: ['value'],
    additionalProperties: false,
  };
  assert.equal(wrapped(wrapperShaped), false, 'the tool description, not the shape, says wrapped');
  for (const schema of [
    { type: 'string' },
    { type: ['object', 'null'] },
    { type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] },
    { type: 'object', oneOf: [{ required: ['a'] }] },
    { type: 'object', allOf: [{ required: ['a'] }] },
    { $ref: '#/$defs/a', $defs: { a: { type: 'object' } } },
  ]) {
    assert.equal(wrapped(schema), true, JSON.stringify(schema));
  }
});

test('a wrapped answer with its own $id keeps its references as they are', () => {
  const schema = {
    $id: 'https://example.com/list.json',
    type: 'array',
    items: { $ref: '#/$defs/item' },
    $defs: { item: { type: 'integer' } },
  };
  const shape = captureShape(assertSupportedSchema(schema));
  assert.deepEqual(shape.parameters.properties, { value: schema });
  const [good, bad] = check(schema, [1, 2], [1, 'two']);
  assert.deepEqual(good, []);
  assert.deepEqual(bad, ['arguments.value[1]: must be integer']);
});

test('a draft-07 answer keeps its dialect at the wrapper root and its definitions beside value', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'array',
    items: [{ $ref: '#/definitions/name' }],
    additionalItems: false,
    definitions: { name: { type: 'string' } },
  };
  const shape = captureShape(assertSupportedSchema(schema));
  assert.equal(shape.parameters.$schema, schema.$schema);
  assert.deepEqual(shape.parameters.definitions, schema.definitions);
  const [good, bad] = check(schema, ['a'], ['a', 'b']);
  assert.deepEqual(good, []);
  assert.deepEqual(bad, ['arguments.value: must NOT have more than 1 items']);
});
