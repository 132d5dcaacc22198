import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_JSON_DEPTH, nestedDeeperThan, parseJsonText } from '../../src/base/json-text.js';

test('valid JSON parses, a byte-order mark included', () => {
  assert.deepEqual(parseJsonText('\uFEFF{"a": [1, true, null]}'), {
    ok: true,
    value: { a: [1, true, null] },
  });
});

test('malformed JSON names the line, the column and what was expected', () => {
  assert.deepEqual(parseJsonText('{\n  "a": 1,\n  "b": }'), {
    ok: false,
    where: 'line 3, column 8',
    problem: 'expected a value, found "}"',
  });
  assert.deepEqual(parseJsonText('{"a": 1} x'), {
    ok: false,
    where: 'line 1, column 10',
    problem: 'expected end of input after the JSON value, found "x"',
  });
  const unterminated = parseJsonText('["open');
  assert.equal(unterminated.ok, false);
  assert.match(unterminated.ok ? '' : unterminated.problem, /closing/);
});

test('nesting is measured without recursion, however deep', () => {
  const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
  assert.equal(nestedDeeperThan(deep, MAX_JSON_DEPTH), true);
  assert.equal(nestedDeeperThan({ a: [[1]] }, 3), false);
  assert.equal(nestedDeeperThan({ a: [[1]] }, 2), true);
  assert.equal(nestedDeeperThan('text', 0), false);
});
