import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineFixture, settled } from './engine-fixture.js';

test('an unusable schema is refused when its call arrives, naming each path, without waiting for a slot', {
  timeout: 60_000,
}, async () => {
  const fixture = engineFixture({
    limits: { maxConcurrentAgents: 1 },
    // The first child holds the only slot until the run ends.
    respond: () => undefined,
  });
  const bad = {
    type: 'object',
    properties: { reviewer: { type: ['string', 'nul'] } },
    nullable: true,
  };
  const run = fixture.start(
    // A schema that is not written literally is checked when its call arrives.
    `const schema = ${JSON.stringify(bad)}; agent('hold'); return await agent('bad', { schema });`,
  );
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'UNSUPPORTED_SCHEMA');
  assert.equal(
    result.error?.message,
    [
      'agent() option schema cannot be used as an output schema (2 problems):',
      '- schema.properties.reviewer.type[1]: must be one of object, array, string, number, integer, boolean, null, got "nul"',
      '- schema: "nullable" is not supported: it is OpenAPI, not JSON Schema; use a list of types ("type": ["string", "null"]) or "anyOf" with {"type": "null"}',
    ].join('\n'),
  );
  assert.deepEqual(
    fixture.fake.children.map((child) => child.request.prompt),
    ['hold'],
    'the refused call reached no provider',
  );
});
