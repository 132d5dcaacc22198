import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import { validateMeta } from '../../src/workflow/meta.js';
import { splitMetaHeader } from '../../src/workflow/meta-header.js';
import { checkScriptBody } from '../../src/workflow/script-parse.js';

const claudeCodeFile = [
  '#!/usr/bin/env loom',
  '// Reviews every changed file.',
  'export const meta = {',
  "  name: 'review-changes',",
  '  description: `Reviews each changed file',
  'and summarises`,',
  '  whenToUse: "when asked for a review", // trailing comment',
  '  /* the plan */',
  '  phases: [',
  "    { title: 'Scan', detail: 'list files' },",
  "    { title: 'Review', model: 'scripted:review.json', },",
  '  ],',
  '};',
  '',
  "phase('Scan');",
  "const files = await agent('list changed files');",
  'return { files };',
].join('\n');

function headerFailure(source: string, file?: string): string {
  try {
    splitMetaHeader(source, file);
  } catch (error) {
    assert.ok(error instanceof WorkflowError);
    assert.equal(error.code, 'META_INVALID');
    return error.message;
  }
  assert.fail('expected splitMetaHeader to throw');
}

test('a Claude Code-shaped header parses into meta data', () => {
  const split = splitMetaHeader(claudeCodeFile);
  assert.ok(split !== undefined);
  assert.deepEqual(split.meta, {
    name: 'review-changes',
    description: 'Reviews each changed file\nand summarises',
    whenToUse: 'when asked for a review',
    phases: [
      { title: 'Scan', detail: 'list files' },
      { title: 'Review', model: 'scripted:review.json' },
    ],
  });
  assert.equal(validateMeta(split.meta).phases?.length, 2);
});

test('the body keeps the file line numbers, with the header and #! blanked', () => {
  const split = splitMetaHeader(claudeCodeFile);
  assert.ok(split !== undefined);
  const fileLines = claudeCodeFile.split('\n');
  const bodyLines = split.body.split('\n');
  assert.equal(bodyLines.length, fileLines.length);
  assert.deepEqual(bodyLines.slice(0, 13), [
    '',
    '// Reviews every changed file.',
    ...Array(11).fill(''),
  ]);
  assert.deepEqual(bodyLines.slice(13), fileLines.slice(13));
  assert.doesNotThrow(() => checkScriptBody(split.body));
});

test('a syntax error in the body reports the line it has in the file', () => {
  const source = 'export const meta = {\n  name: "n",\n  description: "d",\n}\nconst a = ;';
  const split = splitMetaHeader(source);
  assert.ok(split !== undefined);
  assert.throws(() => checkScriptBody(split.body), /does not parse at 5:11/);
});

test('text after the header on its last line keeps its column', () => {
  const source = 'export const meta = { name: "n", description: "d" }; return 1';
  const split = splitMetaHeader(source);
  assert.equal(split?.body, `${' '.repeat(53)}return 1`);
});

test('no header means undefined', () => {
  assert.equal(splitMetaHeader('return 1'), undefined);
  assert.equal(splitMetaHeader('log(1);\nexport const meta = { name: "x" };'), undefined);
  assert.equal(splitMetaHeader('export default 1'), undefined);
  assert.equal(splitMetaHeader(''), undefined);
});

test('scalars: numbers, a minus before a number, booleans, null, string and number keys', () => {
  const split = splitMetaHeader(
    'export const meta = { "quoted key": -1.5, 2: true, zero: -0, none: null, list: [0x10, 1e3, false] }',
  );
  assert.ok(split !== undefined);
  assert.deepEqual(split.meta, {
    'quoted key': -1.5,
    2: true,
    zero: -0,
    none: null,
    list: [16, 1000, false],
  });
  assert.ok(Object.is((split.meta as { zero: number }).zero, -0));
});

test('parentheses around the literal and no semicolon are fine', () => {
  const split = splitMetaHeader('export const meta = ({ name: "n" })\nreturn 1');
  assert.deepEqual(split?.meta, { name: 'n' });
  assert.equal(split?.body, '\nreturn 1');
});

test('a __proto__ key becomes a data property, never a prototype', () => {
  const split = splitMetaHeader(
    'export const meta = { __proto__: { polluted: true }, "__proto__x": 1 }',
  );
  assert.ok(split !== undefined);
  const meta = split.meta as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(meta), Object.prototype);
  assert.ok(Object.hasOwn(meta, '__proto__'));
  assert.deepEqual(Object.getOwnPropertyDescriptor(meta, '__proto__')?.value, { polluted: true });
  assert.equal((meta as { polluted?: unknown }).polluted, undefined);
  assert.match(
    headerFailure('export const meta = { "__proto__": 1, __proto__: 2 }'),
    /^meta header does not parse: Redefinition of __proto__ property at 1:39/,
  );
});

const rejected: Array<[string, string, string]> = [
  ['{ name: undefined }', 'the identifier `undefined`', '1:29'],
  ['{\n  name: "n",\n  description: describe(),\n}', 'a function call', '3:16'],
  ['{ name: process.env.USER }', 'a member access', '1:29'],
  ['{ name: "a" + "b" }', 'a binary expression', '1:29'],
  ['{ name: () => "n" }', 'a function', '1:29'],
  ['{ name: function () {} }', 'a function', '1:29'],
  ['{ name: /n/ }', 'a regular expression', '1:29'],
  [`{ name: \`n-\${1}\` }`, 'a template literal with a substitution', '1:29'],
  ['{ name: String.raw`n` }', 'a tagged template', '1:29'],
  ['{ count: 10n }', 'a bigint', '1:30'],
  ['{ count: -"1" }', 'a unary `-` expression', '1:30'],
  ['{ flag: !0 }', 'a unary `!` expression', '1:29'],
  ['{ count: Infinity }', 'the identifier `Infinity`', '1:30'],
  ['{ ["name"]: "n" }', 'a computed key', '1:23'],
  ['{ ...base }', 'a spread', '1:23'],
  ['{ name }', 'a shorthand property', '1:23'],
  ['{ name() {} }', 'a method', '1:23'],
  ['{ get name() { return "n" } }', 'a getter', '1:23'],
  ['{ set name(v) {} }', 'a setter', '1:23'],
  ['{ name: "a", name: "b" }', 'a duplicate key "name"', '1:34'],
  ['{ phases: [, {}] }', 'an array with a hole (an empty slot)', '1:31'],
  ['{ phases: [...other] }', 'a spread', '1:32'],
  ['{ name: new String("n") }', 'a `new` expression', '1:29'],
  ['{ name: a ? "b" : "c" }', 'a conditional expression', '1:29'],
  ['{ name: "n" }, other = 1', 'a comma expression', '1:21'],
  ['{ name: await x }', 'an await expression', '1:29'],
];

for (const [literal, found, position] of rejected) {
  test(`a header with ${found} is rejected at ${position}: ${literal.replace(/\n/g, ' ')}`, () => {
    const message = headerFailure(`export const meta = ${literal};\nreturn 1`);
    assert.match(
      message,
      new RegExp(
        `^meta header must be a pure literal: found ${escapeRegExp(found)} at ${position}\\n`,
      ),
    );
  });
}

test('a non-literal header names the file and shows the line', () => {
  const message = headerFailure('export const meta = {\n  name: make(),\n};', 'flows/review.js');
  assert.equal(
    message,
    [
      'flows/review.js: meta header must be a pure literal: found a function call at 2:9',
      '  2 |   name: make(),',
      '    |         ^',
    ].join('\n'),
  );
});

test('a body that does not tokenize after the header is left to the body check', () => {
  const split = splitMetaHeader('export const meta = { name: "n" }\n#bad');
  assert.equal(split?.body, '\n#bad');
  assert.throws(() => checkScriptBody(split?.body ?? ''), /does not parse at 2:/);
});

test('a header that does not parse or does not end cleanly is META_INVALID', () => {
  assert.match(
    headerFailure('export const meta = { name: };'),
    /^meta header does not parse: Unexpected token at 1:29/,
  );
  assert.match(
    headerFailure('export const meta: Meta = {};'),
    /^meta header must read `export const meta = <literal>`: no `=` at 1:18/,
  );
  assert.match(
    headerFailure('export const meta = { name: "n" } return 1'),
    /^meta header must end after its literal at 1:35/,
  );
});

test('the header is never evaluated', () => {
  const marker = globalThis as { headerRan?: boolean };
  assert.throws(() =>
    splitMetaHeader('export const meta = { name: (globalThis.headerRan = true) }'),
  );
  assert.equal(marker.headerRan, undefined);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
