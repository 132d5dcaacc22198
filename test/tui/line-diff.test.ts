/** The line diff behind edit views: context, removed and added lines in order. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addedLines, diffLines } from '../../src/tui/line-diff.js';

const shown = (lines: ReturnType<typeof diffLines>) =>
  lines.map((line) => `${{ context: ' ', removed: '-', added: '+' }[line.kind]}${line.text}`);

test('shared lines stay as context and changed lines are removed then added', () => {
  assert.deepEqual(shown(diffLines('a\nb\nc\nd', 'a\nB\nc\nd\ne')), [
    ' a',
    '-b',
    '+B',
    ' c',
    ' d',
    '+e',
  ]);
});

test('lines moved between changes are aligned by their longest common run', () => {
  assert.deepEqual(shown(diffLines('x\n1\n2\ny', '1\n2\nz')), ['-x', ' 1', ' 2', '-y', '+z']);
});

test('an empty old text is all added; a trailing newline adds no empty line', () => {
  assert.deepEqual(shown(diffLines('', 'one\ntwo\n')), ['+one', '+two']);
  assert.deepEqual(shown(addedLines('one\r\ntwo\n')), ['+one', '+two']);
});

test('very large inputs fall back to removed then added, between their shared ends', () => {
  const old = Array.from({ length: 600 }, (_, index) => `old ${index}`);
  const next = Array.from({ length: 600 }, (_, index) => `new ${index}`);
  const lines = diffLines(
    ['head', ...old, 'tail'].join('\n'),
    ['head', ...next, 'tail'].join('\n'),
  );
  assert.equal(lines.length, 1202);
  assert.deepEqual(lines[0], { kind: 'context', text: 'head' });
  assert.deepEqual(lines[1], { kind: 'removed', text: 'old 0' });
  assert.deepEqual(lines[601], { kind: 'added', text: 'new 0' });
  assert.deepEqual(lines[1201], { kind: 'context', text: 'tail' });
});
