import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { SubagentError, type SubagentStartRequest } from '../../src/subagent/contract.js';
import { requestPrompts } from '../helpers/session-files.js';
import { eventsOf, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const filesSchema = {
  type: 'object',
  properties: { files: { type: 'array', items: { type: 'string' } } },
  required: ['files'],
  additionalProperties: false,
};

const countSchema = {
  type: 'object',
  properties: { lines: { type: 'integer' }, language: { type: 'string' } },
  required: ['lines', 'language'],
  additionalProperties: false,
};

const model = {
  rules: [
    { when: 'list files', output: { files: ['a.ts', 'b.ts'] } },
    { when: 'count lines', output: { lines: 42, language: 'ts' } },
    {
      when: 'retry once',
      steps: [{ output: { files: 'not a list' } }, { output: { files: ['fixed.ts'] } }],
    },
    { when: 'plain text', reply: 'here are the files: a.ts' },
    { when: 'review', output: { verdict: 'approve', reviewer: null, fix: { line: 2 } } },
    { when: 'pick one', output: ['b.ts', null] },
  ],
};

function request(fixture: SubagentFixture, prompt: string, outputSchema: object) {
  return {
    parent: { sessionId: fixture.rootId, delegationDepth: 0 },
    prompt,
    outputSchema,
  } as SubagentStartRequest;
}

test('two concurrent children with different schemas each return their own value', async () => {
  const fixture = subagentFixture({ model });
  const { registry } = fixture.services;
  const files = registry.start('spawn', request(fixture, 'list files', filesSchema));
  const count = registry.start('fork', request(fixture, 'count lines', countSchema));
  const [filesResult, countResult] = await Promise.all([files.result, count.result]);
  assert.equal(filesResult.stopReason, 'completed');
  assert.deepEqual(filesResult.structured, { files: ['a.ts', 'b.ts'] });
  assert.equal(filesResult.output, JSON.stringify({ files: ['a.ts', 'b.ts'] }));
  assert.equal(countResult.stopReason, 'completed');
  assert.deepEqual(countResult.structured, { lines: 42, language: 'ts' });

  const offered = (id: string) =>
    requestPrompts(fixture.load(id).events, join(fixture.home, 'sessions'))[0]?.tools.find(
      (tool) => tool.name === 'structured_output',
    )?.parameters;
  assert.deepEqual(offered(files.id), filesSchema);
  assert.deepEqual(offered(count.id), countSchema);
  await fixture.close();
});

test('an invalid structured answer is retried within the turn, then captured', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', request(fixture, 'retry once', filesSchema));
  const result = await run.result;
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.structured, { files: ['fixed.ts'] });
  const results = eventsOf(fixture.load(run.id).events, 'tool/result');
  assert.deepEqual(
    results.map((item) => [item.name, item.isError, item.errorCode]),
    [
      ['structured_output', true, 'TOOL_ARGUMENTS'],
      ['structured_output', false, undefined],
    ],
  );
  await fixture.close();
});

test('a structured child that answers in plain text ends as error (NO_STRUCTURED_OUTPUT)', async () => {
  const fixture = subagentFixture({ model });
  const run = fixture.services.registry.start('spawn', request(fixture, 'plain text', filesSchema));
  const result = await run.result;
  assert.equal(result.stopReason, 'error');
  assert.equal(result.structured, undefined);
  assert.match(result.diagnostic ?? '', /without calling structured_output/);
  const [turnEnd] = eventsOf(fixture.load(run.id).events, 'turn/end');
  assert.equal(turnEnd?.reason, 'error');
  assert.equal(turnEnd?.error?.code, 'NO_STRUCTURED_OUTPUT');
  assert.equal(fixture.ends[0]?.stopReason, 'error');
  await fixture.close();
});

test('schemas as providers take them: anyOf, type lists, $ref, and a root no route takes as parameters', async () => {
  const fixture = subagentFixture({ model });
  const { registry } = fixture.services;
  const reviewSchema = {
    type: 'object',
    properties: {
      verdict: { enum: ['approve', 'reject'] },
      reviewer: { type: ['string', 'null'] },
      fix: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/fix' }] },
    },
    required: ['verdict', 'reviewer', 'fix'],
    $defs: { fix: { type: 'object', properties: { line: { type: 'integer', minimum: 1 } } } },
  };
  const pickSchema = { type: ['array', 'null'], items: { type: ['string', 'null'] } };
  const review = registry.start('spawn', request(fixture, 'review', reviewSchema));
  const pick = registry.start('spawn', request(fixture, 'pick one', pickSchema));
  const [reviewed, picked] = await Promise.all([review.result, pick.result]);
  assert.equal(reviewed.stopReason, 'completed', reviewed.diagnostic);
  assert.deepEqual(reviewed.structured, { verdict: 'approve', reviewer: null, fix: { line: 2 } });
  assert.equal(picked.stopReason, 'completed', picked.diagnostic);
  assert.deepEqual(picked.structured, ['b.ts', null]);
  await fixture.close();
});

test('an unusable schema is UNSUPPORTED_SCHEMA at start, listing every path', async () => {
  const fixture = subagentFixture({ model });
  const files = fixture.sessionFiles();
  const schema = {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email', minLenght: 3 },
      tags: { type: ['string', 'null'], nullable: true },
      owner: { $ref: 'https://example.com/person.json' },
    },
    anyOf: [{ required: ['email'] }],
  };
  assert.throws(
    () => fixture.services.registry.start('spawn', request(fixture, 'list files', schema)),
    (error: unknown) => {
      assert.ok(error instanceof SubagentError);
      assert.equal(error.code, 'UNSUPPORTED_SCHEMA');
      assert.match(error.message, /\(3 problems\)/);
      assert.match(
        error.message,
        /outputSchema\.properties\.email: unknown keyword "minLenght".*did you mean "minLength"\?/,
      );
      assert.match(error.message, /outputSchema\.properties\.tags: "nullable" is not supported/);
      assert.match(error.message, /outputSchema\.properties\.owner\.\$ref: .* outside this one/);
      return true;
    },
  );
  assert.deepEqual(fixture.sessionFiles(), files, 'nothing started');
  assert.equal(fixture.starts.length, 0);
  await fixture.close();
});

test('a structured child cannot be continuable', async () => {
  const fixture = subagentFixture({ model });
  assert.throws(
    () =>
      fixture.services.registry.start('spawn', {
        ...request(fixture, 'list files', filesSchema),
        continuable: true,
      }),
    (error: unknown) => error instanceof SubagentError && error.code === 'UNSUPPORTED_CAPABILITY',
  );
  assert.equal(fixture.starts.length, 0);
  await fixture.close();
});

test('the schema is copied at start: mutating it afterwards changes nothing', async () => {
  const fixture = subagentFixture({ model });
  const schema = structuredClone(filesSchema);
  const run = fixture.services.registry.start('spawn', request(fixture, 'list files', schema));
  (schema.properties.files as { items: { type: string } }).items.type = 'integer';
  const result = await run.result;
  assert.deepEqual(result.structured, { files: ['a.ts', 'b.ts'] });
  await fixture.close();
});
