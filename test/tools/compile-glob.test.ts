import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileGlob, splitGlobBase } from '../../src/tools/compile-glob.js';

function check(pattern: string, matching: string[], notMatching: string[]) {
  const expression = compileGlob(pattern);
  for (const path of matching) assert.ok(expression.test(path), `${pattern} should match ${path}`);
  for (const path of notMatching)
    assert.ok(!expression.test(path), `${pattern} should not match ${path}`);
}

test('* and ? stay within one name', () => {
  check('*.ts', ['a.ts', '.hidden.ts'], ['src/a.ts', 'a.tsx']);
  check('file?.md', ['file1.md', 'fileA.md'], ['file.md', 'file12.md', 'file/.md']);
});

test('** spans any number of folders', () => {
  check('**/*.ts', ['a.ts', 'src/a.ts', 'src/deep/er/a.ts'], ['a.js']);
  check('src/**/*.ts', ['src/a.ts', 'src/x/y/a.ts'], ['lib/a.ts', 'srcx/a.ts']);
  check('src/**', ['src/a', 'src/a/b.c'], ['other/a']);
  check('a**b', ['ab', 'axxb'], ['a/b']);
});

test('{a,b} alternatives, nested and with wildcards', () => {
  check('*.{ts,js}', ['a.ts', 'b.js'], ['c.md']);
  check(
    '{src,test}/**/*.{ts,m{js,ts}}',
    ['src/a.ts', 'test/x/b.mjs', 'test/c.mts'],
    ['lib/a.ts', 'src/a.cjs'],
  );
  check('{a', ['{a'], ['a']);
});

test('character classes, negated classes and escapes', () => {
  check('[abc].txt', ['a.txt', 'c.txt'], ['d.txt', '/.txt']);
  check('[a-c][!0-9].txt', ['ax.txt'], ['a1.txt', 'dx.txt']);
  check('[^x]', ['y'], ['x', '/']);
  check('\\*.txt', ['*.txt'], ['a.txt']);
  check('a+(b).txt', ['a+(b).txt'], ['aab.txt']);
  check('[z', ['[z'], ['z']);
});

test('splitGlobBase separates the wildcard-free folders', () => {
  assert.deepEqual(splitGlobBase('src/lib/**/*.ts'), { base: 'src/lib', rest: '**/*.ts' });
  assert.deepEqual(splitGlobBase('*.ts'), { base: '', rest: '*.ts' });
  assert.deepEqual(splitGlobBase('src/index.ts'), { base: 'src', rest: 'index.ts' });
  assert.deepEqual(splitGlobBase('/abs/{a,b}/x'), { base: '/abs', rest: '{a,b}/x' });
});
