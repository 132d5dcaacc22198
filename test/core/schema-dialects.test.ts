import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parametersProblem,
  schemaDialect,
  validateToolArguments,
} from '../../src/core/tool-arguments.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';

function tool(parameters: Record<string, unknown>): ToolDefinition {
  return { name: 'foreign', description: '', parameters, execute: () => '' };
}

test('a schema is checked in the dialect its $schema names: draft-07 or 2020-12', () => {
  assert.equal(schemaDialect(undefined), '2020-12');
  assert.equal(schemaDialect('https://json-schema.org/draft/2020-12/schema'), '2020-12');
  assert.equal(schemaDialect('http://json-schema.org/draft-07/schema#'), 'draft-07');
  assert.equal(schemaDialect('http://json-schema.org/draft-04/schema#'), undefined);
  // Tuple `items` as an array is draft-07; 2020-12 spells it `prefixItems`.
  const draft07 = tool({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    definitions: { unused: { type: 'string' } },
  });
  assert.equal(parametersProblem(draft07), undefined);
  assert.deepEqual(validateToolArguments(draft07, { pair: ['a', 1] }), {
    ok: true,
    value: { pair: ['a', 1] },
  });
  assert.deepEqual(validateToolArguments(draft07, { pair: [1, 'a'] }), {
    ok: false,
    problems: ['arguments.pair[0]: must be string', 'arguments.pair[1]: must be number'],
  });
  const modern = tool({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } },
  });
  assert.equal(validateToolArguments(modern, { pair: [3] }).ok, false);
  const old = tool({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' });
  assert.match(
    parametersProblem(old) ?? '',
    /unsupported dialect "http:\/\/json-schema\.org\/draft-04\/schema#"/,
  );
  assert.match(
    parametersProblem(tool({ type: 'object', properties: 3 })) ?? '',
    /invalid parameters schema/,
  );
});
