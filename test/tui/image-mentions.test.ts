/** Which image files a terminal prompt names: `@` mentions and pasted paths, only existing ones. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { imagePathsIn } from '../../src/tui/image-mentions.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('mentions and pasted paths (bare, quoted, escaped spaces) name images; other words do not', () => {
  const workspace = temporaryFolder();
  mkdirSync(join(workspace, 'docs'));
  for (const name of ['a.png', 'docs/b.JPG', 'c d.webp', 'e.gif', 'notes.txt']) {
    writeFileSync(join(workspace, name), 'x');
  }
  const absolute = (name: string) => join(workspace, name);
  assert.deepEqual(
    imagePathsIn(
      `look at @a.png, @docs/b.JPG and ${absolute('c\\ d.webp')} then "${absolute('e.gif')}"`,
      workspace,
    ),
    [absolute('a.png'), absolute('docs/b.JPG'), absolute('c d.webp'), absolute('e.gif')],
  );
  assert.deepEqual(imagePathsIn(`'${absolute('c d.webp')}' and again @c\\ d.webp`, workspace), [
    absolute('c d.webp'),
  ]);
  assert.deepEqual(
    imagePathsIn('a.png without @, @missing.png, @notes.txt, mail@a.png', workspace),
    [],
  );
});
