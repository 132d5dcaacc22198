/**
 * Finding and reading instruction files: AGENTS.md (else CLAUDE.md) of the workspace and each
 * parent up to the repository root, the person's own first, the nearest folder last; the list of
 * names from config; `@path` imports with their boundary, depth and cycle rules, a problem for
 * each refusal while the rest still loads.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_INSTRUCTION_FILES } from '../../src/project/instructions-files.js';
import { MAX_IMPORT_DEPTH } from '../../src/project/instructions-imports.js';
import { readInstructions } from '../../src/project/instructions-read.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

/** A repository (with `.git`) holding `files`, a separate `$LOOM_HOME`, and the workspace `packages/app`. */
function repository(files: Record<string, string>, home: Record<string, string> = {}) {
  const root = temporaryFolder('loom-instructions-');
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'packages', 'app'), { recursive: true });
  writeTree(root, files);
  const loomHome = temporaryFolder('loom-instructions-home-');
  writeTree(loomHome, home);
  return { root, home: loomHome, workspace: join(root, 'packages', 'app') };
}

function read(
  places: { workspace: string; home: string },
  names: readonly string[] = DEFAULT_INSTRUCTION_FILES,
) {
  return readInstructions({ ...places, names });
}

test('every folder from the repository root to the workspace is read, personal first, nearest last', () => {
  const places = repository(
    {
      'AGENTS.md': 'root rules',
      'packages/AGENTS.md': 'packages rules',
      'packages/app/AGENTS.md': 'app rules',
    },
    { 'AGENTS.md': 'my own rules' },
  );
  const { files, section, problems } = read(places);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    files.map((file) => [file.origin, file.path, file.text]),
    [
      ['personal', join(places.home, 'AGENTS.md'), 'my own rules'],
      ['project', join(places.root, 'AGENTS.md'), 'root rules'],
      ['project', join(places.root, 'packages', 'AGENTS.md'), 'packages rules'],
      ['project', join(places.workspace, 'AGENTS.md'), 'app rules'],
    ],
  );
  const order = ['my own rules', 'root rules', 'packages rules', 'app rules'].map((text) =>
    section.indexOf(text),
  );
  assert.deepEqual(
    order,
    [...order].sort((left, right) => left - right),
  );
  assert.ok(order.every((at) => at > 0));
  assert.match(
    section,
    new RegExp(`Instructions from: ${join(places.workspace, 'AGENTS.md')}\n\napp rules`),
  );
});

test('CLAUDE.md is read only where a folder has no AGENTS.md', () => {
  const places = repository({
    'AGENTS.md': 'root agents',
    'CLAUDE.md': 'root claude',
    'packages/app/CLAUDE.md': 'app claude',
  });
  const texts = read(places).files.map((file) => file.text);
  assert.deepEqual(texts, ['root agents', 'app claude']);
});

test('instructions.files replaces the names tried in each folder, in its order', () => {
  const places = repository({
    'AGENTS.md': 'root agents',
    'CLAUDE.md': 'root claude',
    'packages/app/AGENTS.md': 'app agents',
    'packages/app/LOOM.md': 'app loom',
  });
  assert.deepEqual(
    read(places, ['LOOM.md', 'CLAUDE.md']).files.map((file) => file.text),
    ['root claude', 'app loom'],
  );
  assert.deepEqual(read(places, []).files, []);
  assert.equal(read(places, []).section, '');
});

test('without a repository only the workspace is read', () => {
  const parent = temporaryFolder('loom-no-repository-');
  const workspace = join(parent, 'work');
  writeTree(parent, { 'AGENTS.md': 'parent rules', 'work/AGENTS.md': 'work rules' });
  const files = read({ workspace, home: temporaryFolder() }).files;
  assert.deepEqual(
    files.map((file) => file.text),
    ['work rules'],
  );
});

test('an empty file, a folder named AGENTS.md and no files at all give no section', () => {
  const places = repository({ 'AGENTS.md': '  \n\n', 'packages/app/AGENTS.md/x': 'not a file' });
  const result = read(places);
  assert.deepEqual(result.files, []);
  assert.equal(result.section, '');
  assert.deepEqual(result.problems, []);
});

test('an @path line is replaced by that file, relative to the importing file, recursively', () => {
  const places = repository({
    'AGENTS.md': 'top\n@docs/style.md\nafter',
    'docs/style.md': 'style rules\n@../notes/more.md\n',
    'notes/more.md': 'more rules\n',
    'packages/app/CLAUDE.md': '  @../../docs/style.md  ',
  });
  const { files, problems } = read(places);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    files.map((file) => file.text),
    ['top\nstyle rules\nmore rules\nafter', 'style rules\nmore rules'],
  );
});

test('an @ line inside a fenced code block or inside a sentence is text, not an import', () => {
  const places = repository({
    'AGENTS.md': 'Use the decorator:\n```ts\n@Component\nclass A {}\n```\nmail @someone about it',
  });
  const { files, problems } = read(places);
  assert.deepEqual(problems, []);
  assert.equal(
    files[0]?.text,
    'Use the decorator:\n```ts\n@Component\nclass A {}\n```\nmail @someone about it',
  );
});

test('a missing import is named, its line kept, and everything else still loads', () => {
  const places = repository({
    'AGENTS.md': 'root\n@docs/missing.md\n@docs/here.md',
    'docs/here.md': 'here',
    'packages/app/AGENTS.md': 'app',
  });
  const { files, problems } = read(places);
  assert.deepEqual(
    files.map((file) => file.text),
    ['root\n@docs/missing.md\nhere', 'app'],
  );
  assert.deepEqual(problems, [
    `${join(places.root, 'AGENTS.md')}: @docs/missing.md: no such file ${join(places.root, 'docs', 'missing.md')} (left out)`,
  ]);
});

test('a cycle of imports is refused naming every file in it', () => {
  const places = repository({
    'AGENTS.md': 'root\n@a.md',
    'a.md': 'a\n@b.md',
    'b.md': 'b\n@a.md',
  });
  const { files, problems } = read(places);
  assert.equal(files[0]?.text, 'root\na\nb\n@a.md');
  const [a, b] = [join(places.root, 'a.md'), join(places.root, 'b.md')];
  assert.deepEqual(problems, [`import cycle refused: ${a} → ${b} → ${a} (${b}: @a.md left out)`]);
});

test('a file importing itself is a cycle too', () => {
  const places = repository({ 'packages/app/AGENTS.md': 'me\n@AGENTS.md' });
  const { files, problems } = read(places);
  assert.equal(files[0]?.text, 'me\n@AGENTS.md');
  assert.match(problems[0] ?? '', /^import cycle refused: AGENTS\.md → AGENTS\.md /);
});

test(`imports go ${MAX_IMPORT_DEPTH} levels deep and no deeper`, () => {
  const chain: Record<string, string> = { 'AGENTS.md': 'level 0\n@level-1.md' };
  for (let level = 1; level <= MAX_IMPORT_DEPTH + 1; level++) {
    chain[`level-${level}.md`] = `level ${level}\n@level-${level + 1}.md`;
  }
  const places = repository(chain);
  const { files, problems } = read(places);
  const levels = Array.from({ length: MAX_IMPORT_DEPTH + 1 }, (_, level) => `level ${level}`);
  assert.equal(files[0]?.text, [...levels, `@level-${MAX_IMPORT_DEPTH + 1}.md`].join('\n'));
  assert.equal(problems.length, 1);
  assert.match(
    problems[0] ?? '',
    new RegExp(
      `@level-${MAX_IMPORT_DEPTH + 1}\\.md: imports go at most ${MAX_IMPORT_DEPTH} levels deep`,
    ),
  );
});

test('an import outside the repository root, also through a link, is refused', () => {
  const outside = temporaryFolder('loom-outside-');
  writeTree(outside, { 'secret.md': 'outside text' });
  const places = repository({
    'AGENTS.md': `@../${outside.split('/').pop()}/secret.md\n@linked.md\n@${join(outside, 'secret.md')}`,
  });
  symlinkSync(join(outside, 'secret.md'), join(places.root, 'linked.md'));
  const { files, problems } = read(places);
  assert.doesNotMatch(files[0]?.text ?? '', /outside text/);
  assert.equal(problems.length, 3);
  for (const problem of problems) {
    assert.match(problem, new RegExp(`is outside ${places.root}; imports stay inside it`));
  }
});

test("the person's file imports from $LOOM_HOME only", () => {
  const places = repository(
    { 'shared.md': 'repository text' },
    { 'AGENTS.md': '@mine.md\n@../x/shared.md', 'mine.md': 'my imported rules' },
  );
  const { files, problems } = read(places);
  assert.equal(files[0]?.text, 'my imported rules\n@../x/shared.md');
  assert.match(problems[0] ?? '', new RegExp(`is outside ${places.home}`));
});
