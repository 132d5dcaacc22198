import assert from 'node:assert/strict';
import { symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { globTool } from '../../src/tools/glob.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

function setup(files: Record<string, number>, maxResults?: number) {
  const workspace = temporaryWorkspace();
  for (const [path, modifiedSeconds] of Object.entries(files)) {
    const [absolute = ''] = writeTree(workspace.root, { [path]: path });
    utimesSync(absolute, modifiedSeconds, modifiedSeconds);
  }
  const tool = globTool({ workspace, ...(maxResults !== undefined && { maxResults }) });
  const glob = async (args: Record<string, unknown>) =>
    contentOf(await tool.execute(args, fakeExecution()));
  return { workspace, glob };
}

const tree = {
  'a.ts': 1000,
  'b.js': 2000,
  'src/c.ts': 3000,
  'src/deep/d.ts': 4000,
  'src/deep/e.md': 5000,
  'node_modules/pkg/index.ts': 6000,
  '.git/hooks/pre.ts': 7000,
};

test('** finds files in every folder, newest first, skipping node_modules and .git', async () => {
  const { glob } = setup(tree);
  assert.equal(await glob({ pattern: '**/*.ts' }), 'src/deep/d.ts\nsrc/c.ts\na.ts');
});

test('* matches only the top folder; braces and classes work', async () => {
  const { glob } = setup(tree);
  assert.equal(await glob({ pattern: '*.ts' }), 'a.ts');
  assert.equal(await glob({ pattern: '**/*.{md,js}' }), 'src/deep/e.md\nb.js');
  assert.equal(await glob({ pattern: 'src/deep/[d-e].*' }), 'src/deep/e.md\nsrc/deep/d.ts');
  assert.equal(await glob({ pattern: 'src/?.ts' }), 'src/c.ts');
});

test('path narrows the search and patterns are relative to it', async () => {
  const { glob } = setup(tree);
  assert.equal(await glob({ pattern: '*.ts', path: 'src/deep' }), 'src/deep/d.ts');
  assert.equal(await glob({ pattern: 'node_modules/**/*.ts' }), 'node_modules/pkg/index.ts');
});

test('ties in modification time fall back to path order', async () => {
  const { glob } = setup({ 'b.txt': 100, 'a.txt': 100, 'c.txt': 200 });
  assert.equal(await glob({ pattern: '*.txt' }), 'c.txt\na.txt\nb.txt');
});

test('results are capped with a note', async () => {
  const files = Object.fromEntries(
    Array.from({ length: 5 }, (_, index) => [`f${index}.txt`, 100 + index]),
  );
  const { glob } = setup(files, 2);
  assert.equal(
    await glob({ pattern: '*.txt' }),
    'f4.txt\nf3.txt\n… 3 more files not shown; narrow the pattern or path',
  );
});

test('no match, escapes and non-folders', async () => {
  const { workspace, glob } = setup(tree);
  assert.equal(await glob({ pattern: '**/*.rs' }), 'no files match **/*.rs');
  await assert.rejects(glob({ pattern: '*.ts', path: '..' }), /outside the workspace/);
  await assert.rejects(glob({ pattern: '../*' }), /outside the workspace/);
  await assert.rejects(glob({ pattern: '/etc/*' }), /outside the workspace/);
  await assert.rejects(glob({ pattern: '*', path: 'a.ts' }), /a\.ts is not a directory/);
  const elsewhere = temporaryFolder();
  writeFileSync(join(elsewhere, 'secret.ts'), '');
  symlinkSync(elsewhere, join(workspace.root, 'linked'));
  assert.equal(await glob({ pattern: '**/secret.ts' }), 'no files match **/secret.ts');
});
