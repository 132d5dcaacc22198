import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SubagentError } from '../../../src/subagent/contract.js';
import {
  assertSupportedSchema,
  cloneSchema,
  schemaProblems,
} from '../../../src/subagent/structured-output/output-schema.js';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** A schema of the kind Claude Code workflow scripts pass to `agent(prompt, {schema})`. */
const claudeCodeSchema = {
  type: 'object',
  properties: {
    verdict: { enum: ['approve', 'request-changes', { escalate: true }] },
    summary: { type: 'string', minLength: 1, maxLength: 500 },
    reviewer: { type: ['string', 'null'], format: 'email' },
    confidence: { type: 'number', minimum: 0, maximum: 1, multipleOf: 0.01 },
    findings: {
      type: 'array',
      minItems: 0,
      maxItems: 20,
      uniqueItems: true,
      items: { $ref: '#/$defs/finding' },
    },
    fix: {
      anyOf: [{ type: 'null' }, { type: 'object', properties: { patch: { type: 'string' } } }],
    },
    labels: { type: 'object', additionalProperties: { type: 'string', pattern: '^[a-z-]+$' } },
    mode: { const: { strict: true, level: 2 } },
  },
  required: ['verdict', 'summary', 'findings'],
  additionalProperties: false,
  $defs: {
    finding: {
      type: 'object',
      properties: {
        file: { type: 'string' },
        line: { type: 'integer', exclusiveMinimum: 0 },
        severity: { oneOf: [{ const: 'low' }, { const: 'high' }] },
        related: { type: 'array', items: { $ref: '#/$defs/finding' } },
      },
      required: ['file'],
      allOf: [{ not: { required: ['ignored'] } }],
    },
  },
};

test('a Claude Code style schema (anyOf, type lists, $defs/$ref, bounds, pattern, format) is accepted', () => {
  assert.deepEqual(schemaProblems(claudeCodeSchema), []);
  assert.deepEqual(assertSupportedSchema(claudeCodeSchema), claudeCodeSchema);
});

/** One valid use of each keyword, in draft 2020-12 (the default dialect). */
const everyKeyword: Array<[string, unknown]> = [
  ['$id', 'https://example.com/answer'],
  ['$comment', 'why'],
  ['$anchor', 'answer'],
  ['$defs', { a: { type: 'string' } }],
  ['definitions', { a: { type: 'string' } }],
  ['title', 'Answer'],
  ['description', 'what it is'],
  ['default', { any: ['json'] }],
  ['examples', [1, 'two', null]],
  ['deprecated', false],
  ['readOnly', true],
  ['writeOnly', false],
  ['format', 'date-time'],
  ['contentMediaType', 'application/json'],
  ['contentEncoding', 'base64'],
  ['contentSchema', { type: 'object' }],
  ['type', ['string', 'null']],
  ['enum', [1, 'a', null, { b: [2] }]],
  ['const', [1, { two: 2 }]],
  ['allOf', [{ type: 'string' }]],
  ['anyOf', [{ type: 'string' }, { type: 'null' }]],
  ['oneOf', [{ type: 'string' }, true]],
  ['not', { type: 'null' }],
  ['if', { type: 'string' }],
  ['then', { minLength: 1 }],
  ['else', false],
  ['properties', { a: { type: 'string' }, 'odd key': true }],
  ['patternProperties', { '^x-': { type: 'string' } }],
  ['additionalProperties', { type: 'integer' }],
  ['unevaluatedProperties', false],
  ['propertyNames', { pattern: '^[a-z]+$' }],
  ['required', ['a', 'b']],
  ['dependentRequired', { a: ['b'] }],
  ['dependentSchemas', { a: { required: ['b'] } }],
  ['dependencies', { a: ['b'], c: { required: ['d'] } }],
  ['minProperties', 1],
  ['maxProperties', 3],
  ['items', { type: 'string' }],
  ['prefixItems', [{ type: 'string' }, { type: 'integer' }]],
  ['unevaluatedItems', false],
  ['contains', { const: 3 }],
  ['minContains', 1],
  ['maxContains', 2],
  ['minItems', 0],
  ['maxItems', 9],
  ['uniqueItems', true],
  ['minLength', 0],
  ['maxLength', 80],
  ['pattern', '^\\p{L}+$'],
  ['minimum', -1.5],
  ['maximum', 10],
  ['exclusiveMinimum', 0],
  ['exclusiveMaximum', 100],
  ['multipleOf', 0.5],
  ['x-vendor', { any: 'annotation' }],
];

test('each keyword providers take is accepted, alone under an object answer', () => {
  for (const [keyword, value] of everyKeyword) {
    const schema = { type: 'object', properties: { field: { [keyword]: value } } };
    assert.deepEqual(schemaProblems(schema), [], keyword);
  }
});

test('draft-07 schemas are accepted with their own keywords', () => {
  const schema = {
    $schema: DRAFT_07,
    type: 'array',
    items: [{ type: 'string' }, { type: 'integer' }],
    additionalItems: false,
    definitions: { name: { type: 'string' } },
    contains: { $ref: '#/definitions/name' },
  };
  assert.deepEqual(schemaProblems(schema), []);
});

test('any root is accepted; a root that is not a schema object is not', () => {
  for (const schema of [
    { type: 'string' },
    { type: ['object', 'null'], properties: { a: { type: 'string' } } },
    { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    { $ref: '#/$defs/a', $defs: { a: { type: 'boolean' } } },
    { enum: [{ a: 1 }, [2]] },
    {},
  ]) {
    assert.deepEqual(schemaProblems(schema), [], JSON.stringify(schema));
  }
  assert.deepEqual(schemaProblems('string'), ['$: must be a schema object, got "string"']);
  assert.deepEqual(schemaProblems(true), ['$: must be a schema object, got true']);
  assert.deepEqual(schemaProblems([]), ['$: must be a schema object, got an array']);
  assert.deepEqual(schemaProblems(new Date()), [
    '$: must be a schema object, got a non-plain object',
  ]);
});

test('a keyword no route can send is refused by name, saying what to use instead', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'nullable',
      true,
      /"nullable" is not supported: .*use a list of types \("type": \["string", "null"\]\)/,
    ],
    ['discriminator', { propertyName: 'kind' }, /"discriminator" is not supported: .*use "oneOf"/],
    ['example', 'x', /"example" is not supported: .*use "examples"/],
    ['id', 'x', /"id" is not supported: it is draft-04; use "\$id"/],
    ['$dynamicRef', '#meta', /"\$dynamicRef" is not supported: .*use "\$ref" to a "\$defs" entry/],
    ['$dynamicAnchor', 'meta', /"\$dynamicAnchor" is not supported: .*"\$ref"/],
    ['$recursiveRef', '#', /"\$recursiveRef" is not supported: .*"\$ref"/],
    ['$recursiveAnchor', true, /"\$recursiveAnchor" is not supported/],
    ['$vocabulary', {}, /"\$vocabulary" is not supported: it belongs in a meta-schema/],
    ['additionalItems', false, /"additionalItems" is not a 2020-12 keyword: .*"prefixItems"/],
    [
      'minLenght',
      3,
      /unknown keyword "minLenght": .*nothing would enforce it; did you mean "minLength"\?/,
    ],
    ['requird', ['a'], /unknown keyword "requird": .*did you mean "required"\?/],
    [
      'colour',
      'red',
      /unknown keyword "colour": it is not JSON Schema, so nothing would enforce it; remove it$/,
    ],
  ];
  for (const [keyword, value, expected] of cases) {
    const problems = schemaProblems({ type: 'object', properties: { a: { [keyword]: value } } });
    assert.equal(problems.length, 1, `${keyword}: ${problems.join('; ')}`);
    assert.ok(problems[0]?.startsWith('$.properties.a: '), problems[0]);
    assert.match(problems[0] ?? '', expected, keyword);
  }
  assert.deepEqual(schemaProblems({ $schema: DRAFT_07, type: 'array', prefixItems: [true] }), [
    '$: "prefixItems" is not a draft-07 keyword: it is a draft 2020-12 keyword; remove "$schema" (2020-12 is the default) or write it the draft-07 way',
  ]);
});

test('a malformed keyword value is named with its path', () => {
  const cases: Array<[unknown, string[]]> = [
    [
      { type: 'text' },
      ['$.type: must be one of object, array, string, number, integer, boolean, null, got "text"'],
    ],
    [
      { type: ['string', 'nul', 'string'] },
      [
        '$.type[1]: must be one of object, array, string, number, integer, boolean, null, got "nul"',
        '$.type[2]: "string" is listed twice',
      ],
    ],
    [
      { type: [] },
      [
        '$.type: must be a type (one of object, array, string, number, integer, boolean, null) or a non-empty list of them, got an array',
      ],
    ],
    [{ anyOf: [] }, ['$.anyOf: must be a non-empty list of schemas, got an array']],
    [
      { oneOf: [{ type: 'string' }, 3] },
      ['$.oneOf[1]: must be a schema (an object, or true or false), got 3'],
    ],
    [{ properties: [] }, ['$.properties: must be an object of schemas, got an array']],
    [
      { additionalProperties: 'no' },
      ['$.additionalProperties: must be a schema (an object, or true or false), got "no"'],
    ],
    [{ required: 'a' }, ['$.required: must be a list of property names, got "a"']],
    [
      { required: ['a', 3, 'a'] },
      [
        '$.required[1]: must be a property name (a string), got 3',
        '$.required[2]: "a" is listed twice',
      ],
    ],
    [{ enum: [] }, ['$.enum: must be a non-empty list of values, got an array']],
    [{ minLength: -1 }, ['$.minLength: must be a whole number, 0 or more, got -1']],
    [{ maxItems: 1.5 }, ['$.maxItems: must be a whole number, 0 or more, got 1.5']],
    [{ minimum: '3' }, ['$.minimum: must be a number, got "3"']],
    [
      { exclusiveMinimum: true },
      [
        "$.exclusiveMinimum: must be the bound itself, a number (draft-04's true or false here is not draft-07 or 2020-12); got true",
      ],
    ],
    [{ multipleOf: 0 }, ['$.multipleOf: must be a number greater than 0, got 0']],
    [{ uniqueItems: 'yes' }, ['$.uniqueItems: must be true or false, got "yes"']],
    [
      { pattern: '(' },
      [
        '$.pattern: "(" is not a valid regular expression (Invalid regular expression: /(/u: Unterminated group)',
      ],
    ],
    [
      { patternProperties: { '[': true } },
      [
        '$.patternProperties["["]: "[" is not a valid regular expression (Invalid regular expression: /[/u: Unterminated character class)',
      ],
    ],
    [
      { title: 3, examples: 'x' },
      ['$.title: must be a string, got 3', '$.examples: must be a list of values, got "x"'],
    ],
    [{ $ref: 5 }, ['$.$ref: must be a reference as a string, got 5']],
    [
      { items: { $schema: DRAFT_07 } },
      ['$.items.$schema: "$schema" is allowed at the root only; remove it here'],
    ],
    [
      { items: [{ type: 'string' }] },
      [
        '$.items: a list of item schemas is "prefixItems" in draft 2020-12; "items" takes one schema, for the items after them',
      ],
    ],
    [
      { $schema: 'https://json-schema.org/draft/2019-09/schema' },
      [
        '$.$schema: "https://json-schema.org/draft/2019-09/schema" is not a dialect Loom validates; use "https://json-schema.org/draft/2020-12/schema" (the default when absent) or "http://json-schema.org/draft-07/schema#"',
      ],
    ],
  ];
  for (const [schema, expected] of cases) {
    assert.deepEqual(schemaProblems(schema), expected, JSON.stringify(schema));
  }
});

test('references must point inside the schema, at a schema', () => {
  const accepted = [
    { type: 'object', properties: { next: { $ref: '#' } } },
    { $defs: { 'a/b': { type: 'string' } }, items: { $ref: '#/$defs/a~1b' } },
    { $defs: { 'a b': { type: 'string' } }, items: { $ref: '#/$defs/a%20b' } },
    { $defs: { a: { $anchor: 'name', type: 'string' } }, items: { $ref: '#name' } },
    { anyOf: [{ type: 'string' }, { $ref: '#/anyOf/0' }] },
  ];
  for (const schema of accepted)
    assert.deepEqual(schemaProblems(schema), [], JSON.stringify(schema));
  assert.deepEqual(
    schemaProblems(
      {
        type: 'object',
        properties: {
          remote: { $ref: 'https://example.com/person.json' },
          missing: { $ref: '#/$defs/person' },
          anchor: { $ref: '#person' },
          data: { $ref: '#/required' },
        },
        required: ['remote'],
      },
      'schema',
    ),
    [
      'schema.properties.remote.$ref: "https://example.com/person.json" names a schema outside this one, which no route can fetch; copy that schema under "$defs" and write "#/$defs/NAME"',
      'schema.properties.missing.$ref: "#/$defs/person" points at nothing in this schema (no "$defs"); point at a "$defs" entry ("#/$defs/NAME")',
      'schema.properties.anchor.$ref: "#person" names no "$anchor" of this schema; point at a "$defs" entry instead ("#/$defs/NAME")',
      'schema.properties.data.$ref: "#/required" points at an array, not at a schema',
    ],
  );
});

test('with an $id, references resolve against it and ajv reports what it cannot resolve', () => {
  const resolved = {
    $id: 'https://example.com/answer.json',
    type: 'object',
    properties: { name: { $ref: 'answer.json#/$defs/name' } },
    $defs: { name: { type: 'string' } },
  };
  assert.deepEqual(schemaProblems(resolved), []);
  const [problem, ...rest] = schemaProblems({
    $id: 'https://example.com/answer.json',
    type: 'object',
    properties: { name: { $ref: 'other.json' } },
  });
  assert.deepEqual(rest, []);
  assert.match(problem ?? '', /^\$: ajv cannot compile it: can't resolve reference other\.json/);
});

test('several problems in one schema are reported together, each with its path', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: -1, nullable: true },
      'odd key': { type: ['string', 'none'] },
      list: { type: 'array', items: { $ref: '#/$defs/item' } },
    },
    required: 'name',
  };
  const problems = schemaProblems(schema, 'outputSchema');
  assert.deepEqual(problems, [
    'outputSchema.properties.name.minLength: must be a whole number, 0 or more, got -1',
    'outputSchema.properties.name: "nullable" is not supported: it is OpenAPI, not JSON Schema; use a list of types ("type": ["string", "null"]) or "anyOf" with {"type": "null"}',
    'outputSchema.properties["odd key"].type[1]: must be one of object, array, string, number, integer, boolean, null, got "none"',
    'outputSchema.required: must be a list of property names, got "name"',
    'outputSchema.properties.list.items.$ref: "#/$defs/item" points at nothing in this schema (no "$defs"); point at a "$defs" entry ("#/$defs/NAME")',
  ]);
  assert.throws(
    () => assertSupportedSchema(schema),
    (error: unknown) => {
      assert.ok(error instanceof SubagentError);
      assert.equal(error.code, 'UNSUPPORTED_SCHEMA');
      assert.match(
        error.message,
        /^outputSchema cannot be used as an output schema \(5 problems\):\n/,
      );
      for (const problem of problems) assert.ok(error.message.includes(`- ${problem}`), problem);
      return true;
    },
  );
});

test('a schema must be JSON: a cycle, a function, a Map, NaN or undefined is named, never cloned', () => {
  const cyclic: Record<string, unknown> = { type: 'array' };
  cyclic.items = cyclic;
  assert.deepEqual(schemaProblems(cyclic), [
    '$.items: contains itself (a cycle), which JSON cannot carry',
  ]);
  const shared = { type: 'string' };
  assert.deepEqual(schemaProblems({ anyOf: [shared, shared] }), [], 'a shared part is not a cycle');
  const schema = {
    type: 'object',
    properties: { count: { type: 'number', default: () => 1, description: undefined } },
    examples: [{ when: new Map() }, Number.NaN],
  };
  assert.deepEqual(schemaProblems(schema), [
    '$.properties.count.default: must be a JSON value (found a function)',
    '$.properties.count.description: must be a JSON value (found undefined)',
    '$.examples[0].when: must be a JSON value (found a Map)',
    '$.examples[1]: must be a finite number, got NaN',
  ]);
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
