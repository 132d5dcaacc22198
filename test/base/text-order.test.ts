import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareIgnoringCase, compareText } from '../../src/base/text-order.js';

test('compareText orders ISO timestamps by time and ids as sort() does', () => {
  const stamps = [
    '2026-12-03T08:00:01.000Z',
    '2026-12-02T23:59:59.999Z',
    '2026-12-03T08:00:00.500Z',
  ];
  assert.deepEqual([...stamps].sort(compareText), [...stamps].sort());
  assert.equal(compareText('a', 'a'), 0);
  assert.ok(compareText('B', 'a') < 0);
});

test('compareIgnoringCase folds case and breaks ties by the exact text', () => {
  assert.deepEqual(['beta', 'Alpha', 'alpha', 'Gamma'].sort(compareIgnoringCase), [
    'Alpha',
    'alpha',
    'beta',
    'Gamma',
  ]);
});
