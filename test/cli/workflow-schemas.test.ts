import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

/** A review workflow written as Claude Code scripts are: a meta header, schemas with anyOf and type lists. */
const REVIEW = `export const meta = {
  name: 'review',
  description: 'Review each changed file and pick the files that need a fix',
};

const reviewSchema = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['approve', 'request-changes'] },
    reviewer: { type: ['string', 'null'] },
    fix: {
      anyOf: [
        { type: 'null' },
        { type: 'object', properties: { line: { type: 'integer', minimum: 1 }, patch: { type: 'string' } }, required: ['line', 'patch'] },
      ],
    },
    notes: { type: 'array', items: { $ref: '#/$defs/note' }, maxItems: 5 },
  },
  required: ['verdict', 'reviewer', 'fix'],
  additionalProperties: false,
  $defs: { note: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] } },
};

const files = args.files;
const reviews = await parallel(files.map((file) => () => agent(\`review \${file}\`, { label: file, schema: reviewSchema })));
const pick = await agent('pick the file to fix first', {
  label: 'pick',
  schema: { anyOf: [{ type: 'string', pattern: '\\\\.ts$' }, { type: 'null' }] },
});
return { reviews, pick };
`;

const REVIEW_MODEL = {
  rules: [
    { when: '^review a\\.ts', output: { verdict: 'approve', reviewer: null, fix: null } },
    {
      when: '^review b\\.ts',
      output: {
        verdict: 'request-changes',
        reviewer: 'ana',
        fix: { line: 3, patch: '- x\n+ y' },
        notes: [{ text: 'off by one' }],
      },
    },
    // A wrong value: the reviewer is a number, the fix's line is 0.
    {
      when: '^review c\\.ts',
      output: { verdict: 'approve', reviewer: 7, fix: { line: 0, patch: '' } },
    },
    { when: '^pick', output: 'b.ts' },
  ],
};

function reviewFiles() {
  const home = temporaryFolder();
  const script = writeFile(home, 'review.js', REVIEW);
  const model = `scripted:${writeJson(home, 'model.json', REVIEW_MODEL)}`;
  return { home, script, model };
}

test('workflow run: a Claude Code script whose schemas use anyOf, type lists and $ref returns the values', async () => {
  const { home, script, model } = reviewFiles();
  const run = await runWorkflow(
    ['run', script, '--model', model, '--json', '--args', '{"files":["a.ts","b.ts"]}'],
    { home },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.deepEqual(result.failures, []);
  assert.deepEqual(result.value, {
    reviews: [
      { verdict: 'approve', reviewer: null, fix: null },
      {
        verdict: 'request-changes',
        reviewer: 'ana',
        fix: { line: 3, patch: '- x\n+ y' },
        notes: [{ text: 'off by one' }],
      },
    ],
    pick: 'b.ts',
  });
});

test('workflow run: a value that does not match the schema fails its agent, naming each path', async () => {
  const { home, script, model } = reviewFiles();
  const run = await runWorkflow(
    ['run', script, '--model', model, '--json', '--args', '{"files":["a.ts","c.ts"]}'],
    { home },
  );
  assert.equal(run.code, 3, run.stderr);
  const result = parseResult(run);
  const value = result.value as { reviews: unknown[]; pick: unknown };
  assert.deepEqual(value.reviews, [{ verdict: 'approve', reviewer: null, fix: null }, null]);
  const failures = result.failures as Array<{ label: string; outcome: string; reason: string }>;
  assert.deepEqual(
    failures.map((failure) => [failure.label, failure.outcome]),
    [['c.ts', 'failed']],
  );
  const [failure] = failures;
  assert.match(failure?.reason ?? '', /called structured_output with invalid arguments 5 times/);
  assert.match(failure?.reason ?? '', /- arguments\.reviewer: must be string or null/);
  assert.match(failure?.reason ?? '', /- arguments\.fix\.line: must be >= 1/);
  assert.match(run.stderr, /c\.ts/);
});

test('workflow run: a keyword no route can send ends the run before any agent starts, naming it', async () => {
  const home = temporaryFolder();
  const model = `scripted:${writeJson(home, 'model.json', { default: { reply: 'ok' } })}`;
  const script = writeFile(
    home,
    'nullable.js',
    `export const meta = { name: 'nullable', description: 'an OpenAPI habit' };
return await agent('who reviewed it?', { schema: { type: 'object', properties: { reviewer: { type: 'string', nullable: true } } } });
`,
  );
  const run = await runWorkflow(['run', script, '--model', model, '--json'], { home });
  assert.equal(run.code, 2, run.stderr);
  const refused = JSON.parse(run.stdout) as { code: string; error: string };
  assert.equal(refused.code, 'UNSUPPORTED_SCHEMA');
  assert.ok(
    refused.error.includes(
      'agent() option schema cannot be used as an output schema (a problem):\n- schema.properties.reviewer: "nullable" is not supported: it is OpenAPI, not JSON Schema; use a list of types ("type": ["string", "null"]) or "anyOf" with {"type": "null"} (at 2:50)',
    ),
    refused.error,
  );
  assert.equal(existsSync(join(home, 'sessions')), false, 'no agent started');
  const checked = await runWorkflow(['check', script], { home });
  assert.equal(checked.code, 2, checked.stderr);
  assert.match(checked.stderr, /schema\.properties\.reviewer: "nullable" is not supported/);
});
