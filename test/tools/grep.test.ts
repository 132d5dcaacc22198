import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grepTool } from '../../src/tools/grep.js';
import { writeTree } from '../helpers/file-tree.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

function setup(files: Record<string, string | Buffer>) {
  const workspace = temporaryWorkspace();
  writeTree(workspace.root, files);
  const tool = grepTool({ workspace });
  const grep = async (args: Record<string, unknown>) =>
    contentOf(await tool.execute(args, fakeExecution()));
  return { grep };
}

const tree = {
  'a.ts': 'export function load() {}\nconst Loaded = true;\n',
  'src/b.ts': 'import { load } from "../a";\nload();\n',
  'src/c.md': 'how to load things\n',
  'node_modules/x/index.ts': 'load\n',
  '.git/config': 'load\n',
  'image.png': Buffer.concat([Buffer.from('load'), Buffer.from([0, 1, 2])]),
};

test('finds matches as file:line: text in path order, skipping binaries and skipped folders', async () => {
  const { grep } = setup(tree);
  assert.equal(
    await grep({ pattern: 'load' }),
    'a.ts:1: export function load() {}\nsrc/b.ts:1: import { load } from "../a";\nsrc/b.ts:2: load();\nsrc/c.md:1: how to load things',
  );
});

test('ignore_case, glob and path filter the search', async () => {
  const { grep } = setup(tree);
  assert.equal(
    await grep({ pattern: '^const loaded', ignore_case: true }),
    'a.ts:2: const Loaded = true;',
  );
  assert.equal(await grep({ pattern: 'load', glob: '*.md' }), 'src/c.md:1: how to load things');
  assert.equal(await grep({ pattern: 'load\\(\\)', glob: 'src/*.ts' }), 'src/b.ts:2: load();');
  assert.equal(await grep({ pattern: 'load', path: 'src/c.md' }), 'src/c.md:1: how to load things');
  assert.equal(
    await grep({ pattern: 'load', path: 'node_modules' }),
    'node_modules/x/index.ts:1: load',
  );
});

test('max_results caps the output with a note', async () => {
  const { grep } = setup({ 'many.txt': 'hit\n'.repeat(10) });
  assert.equal(
    await grep({ pattern: 'hit', max_results: 3 }),
    'many.txt:1: hit\nmany.txt:2: hit\nmany.txt:3: hit\n… stopped after 3 matches; narrow the pattern, path or glob',
  );
  const exact = await grep({ pattern: 'hit', max_results: 10 });
  assert.ok(!exact.includes('stopped after'));
});

test('long matching lines are cut to 300 characters', async () => {
  const { grep } = setup({ 'wide.txt': `needle${'y'.repeat(400)}` });
  assert.equal(
    await grep({ pattern: 'needle' }),
    `wide.txt:1: needle${'y'.repeat(294)}… [106 more characters]`,
  );
});

test('an invalid regular expression, no matches and escapes', async () => {
  const { grep } = setup(tree);
  await assert.rejects(grep({ pattern: 'load(' }), /invalid regular expression "load\(":/);
  assert.equal(await grep({ pattern: 'nothing-here' }), 'no matches for nothing-here');
  await assert.rejects(grep({ pattern: 'x', path: '/etc' }), /outside the workspace/);
});
