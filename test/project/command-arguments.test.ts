/**
 * A custom command's arguments: split as a shell splits words (quotes respected, nothing
 * expanded), and `$ARGUMENTS`, `$1`…`$9` filled in; a body without placeholders gets them appended.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandCommandBody, splitArguments } from '../../src/project/command-arguments.js';

test('arguments split on blanks; quotes group and are removed; a backslash escapes; nothing expands', () => {
  assert.deepEqual(splitArguments('42 high'), ['42', 'high']);
  assert.deepEqual(splitArguments(`  "two words"  'single $HOME' "a \\"q\\"" b\\ c `), [
    'two words',
    'single $HOME',
    'a "q"',
    'b c',
  ]);
  assert.deepEqual(splitArguments('issue #42 *.ts $(rm -rf /)'), [
    'issue',
    '#42',
    '*.ts',
    '$(rm',
    '-rf',
    '/)',
  ]);
  assert.deepEqual(splitArguments('""'), ['']);
  assert.deepEqual(splitArguments(''), []);
});

test('$ARGUMENTS is the whole text, $1…$9 its words, a missing word empty', () => {
  const body = 'Fix issue #$1 with priority $2 ($3). All: $ARGUMENTS';
  assert.equal(
    expandCommandBody(body, ' 42 "very high" '),
    'Fix issue #42 with priority very high (). All: 42 "very high"',
  );
  assert.equal(expandCommandBody('$1$2$10', 'a b'), 'aba0');
});

test('a body without placeholders gets the arguments on a line of their own; none, the body alone', () => {
  assert.equal(
    expandCommandBody('Review the diff.', 'src/a.ts'),
    'Review the diff.\n\nARGUMENTS: src/a.ts',
  );
  assert.equal(expandCommandBody('Review the diff.', '  '), 'Review the diff.');
});
