import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import { MAXIMUM_META_NAME_LENGTH, validateMeta } from '../../src/workflow/meta.js';

function metaFailure(value: unknown): string {
  try {
    validateMeta(value);
  } catch (error) {
    assert.ok(error instanceof WorkflowError);
    assert.equal(error.code, 'META_INVALID');
    return error.message;
  }
  assert.fail('expected validateMeta to throw');
}

test('a full meta round-trips as a fresh copy', () => {
  const input = {
    name: 'review',
    description: 'Reviews a change',
    whenToUse: 'When asked to review',
    phases: [{ title: 'Scan', detail: 'find files', model: 'scripted:x.json' }, { title: 'Judge' }],
  };
  const meta = validateMeta(input);
  assert.deepEqual(meta, input);
  assert.notEqual(meta, input);
  assert.notEqual(meta.phases, input.phases);
  assert.notEqual(meta.phases?.[0], input.phases[0]);
  const judge = input.phases[1];
  assert.ok(judge !== undefined);
  judge.title = 'changed';
  assert.equal(meta.phases?.[1]?.title, 'Judge');
});

test('a minimal meta keeps only what was given', () => {
  const meta = validateMeta({ name: 'n', description: 'd' });
  assert.deepEqual(Object.keys(meta), ['name', 'description']);
});

test('explicitly undefined optional fields count as absent', () => {
  const meta = validateMeta({ name: 'n', description: 'd', whenToUse: undefined });
  assert.deepEqual(meta, { name: 'n', description: 'd' });
});

test('a meta with a null prototype is accepted', () => {
  const value = Object.assign(Object.create(null), { name: 'n', description: 'd' });
  assert.deepEqual(validateMeta(value), { name: 'n', description: 'd' });
});

test('non-objects are rejected', () => {
  assert.match(
    metaFailure(null),
    /^invalid workflow meta \(1 problem\):\n {2}meta: must be an object/,
  );
  assert.match(metaFailure(null), /not null$/);
  assert.match(metaFailure([]), /meta: must be an object .*not an array/);
  assert.match(metaFailure('name'), /meta: must be an object .*not a string/);
  assert.match(metaFailure(undefined), /not an undefined/);
  assert.match(metaFailure(new Date()), /not a non-plain object/);
});

test('missing, empty and mistyped name and description are named', () => {
  const message = metaFailure({ description: '   ' });
  assert.match(message, /meta\.name: must be a non-empty string \(it is missing\)/);
  assert.match(message, /meta\.description: must be a non-empty string \(not a blank string\)/);
  assert.match(
    metaFailure({ name: 7, description: 'd' }),
    /meta\.name: must be a non-empty string \(not a number\)/,
  );
  assert.match(
    metaFailure({ name: 'n', description: '' }),
    /meta\.description: .*not an empty string/,
  );
});

test('a name longer than the limit is rejected', () => {
  const name = 'n'.repeat(MAXIMUM_META_NAME_LENGTH + 1);
  assert.match(
    metaFailure({ name, description: 'd' }),
    /meta\.name: must be at most 100 characters \(it has 101\)/,
  );
  assert.equal(validateMeta({ name: name.slice(1), description: 'd' }).name.length, 100);
});

test('whenToUse must be a string', () => {
  assert.match(
    metaFailure({ name: 'n', description: 'd', whenToUse: 3 }),
    /meta\.whenToUse: must be a string, not a number/,
  );
});

test('unknown keys are rejected by name at every level', () => {
  const message = metaFailure({
    name: 'n',
    description: 'd',
    colour: 'blue',
    'odd key': 1,
    phases: [{ title: 'a', effort: 'high' }],
  });
  assert.match(
    message,
    /meta\.colour: unknown key \(allowed: name, description, whenToUse, phases, budgetTokens\)/,
  );
  assert.match(message, /meta\["odd key"\]: unknown key/);
  assert.match(message, /meta\.phases\[0\]\.effort: unknown key \(allowed: title, detail, model\)/);
});

test('a "__proto__" own key is an unknown key, not a prototype', () => {
  const value = JSON.parse('{"name": "n", "description": "d", "__proto__": {"phases": []}}');
  assert.match(metaFailure(value), /meta\.__proto__: unknown key/);
});

test('phases must be an array of objects with valid fields', () => {
  assert.match(
    metaFailure({ name: 'n', description: 'd', phases: {} }),
    /meta\.phases: must be an array of phase objects, not an object/,
  );
  const message = metaFailure({
    name: 'n',
    description: 'd',
    phases: ['Scan', { title: 3 }, { title: 'ok', detail: false, model: '' }, null],
  });
  assert.match(message, /meta\.phases\[0\]: must be an object with a title, not a string/);
  assert.match(message, /meta\.phases\[1\]\.title: must be a non-empty string/);
  assert.match(message, /meta\.phases\[2\]\.detail: must be a string, not a boolean/);
  assert.match(
    message,
    /meta\.phases\[2\]\.model: must be a non-empty string, not an empty string/,
  );
  assert.match(message, /meta\.phases\[3\]: must be an object with a title, not null/);
  assert.match(message, /^invalid workflow meta \(5 problems\)/);
});

test('phase titles must be unique', () => {
  const message = metaFailure({
    name: 'n',
    description: 'd',
    phases: [{ title: 'Scan' }, { title: 'Judge' }, { title: 'Scan' }],
  });
  assert.match(message, /meta\.phases\[2\]\.title: duplicates meta\.phases\[0\]\.title \("Scan"\)/);
});

test('every violation is listed in one error, one a line', () => {
  const message = metaFailure({ name: '', colour: 1, phases: [{}] });
  assert.deepEqual(message.split('\n').slice(1), [
    '  meta.colour: unknown key (allowed: name, description, whenToUse, phases, budgetTokens)',
    '  meta.name: must be a non-empty string (not an empty string)',
    '  meta.description: must be a non-empty string (it is missing)',
    '  meta.phases[0].title: must be a non-empty string (it is missing)',
  ]);
});

test('an empty phases array is fine', () => {
  assert.deepEqual(validateMeta({ name: 'n', description: 'd', phases: [] }).phases, []);
});

test('meta.budgetTokens is a positive whole number of tokens', () => {
  assert.deepEqual(validateMeta({ name: 'n', description: 'd', budgetTokens: 5000 }), {
    name: 'n',
    description: 'd',
    budgetTokens: 5000,
  });
  for (const [value, shown] of [
    [0, '0'],
    [-3, '-3'],
    [1.5, '1.5'],
    ['100', 'a string'],
    [null, 'null'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
  ] as const) {
    assert.match(
      metaFailure({ name: 'n', description: 'd', budgetTokens: value }),
      new RegExp(`meta\\.budgetTokens: must be a positive whole number of tokens, not ${shown}$`),
    );
  }
});
