import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import {
  checkScriptBody,
  opensWithMetaExport,
  positionAt,
  sourceExcerpt,
} from '../../src/workflow/script-parse.js';

function parseFailure(script: string): string {
  try {
    checkScriptBody(script);
  } catch (error) {
    assert.ok(error instanceof WorkflowError);
    assert.equal(error.code, 'SCRIPT_PARSE');
    return error.message;
  }
  assert.fail('expected checkScriptBody to throw');
}

test('a Claude Code-shaped body with top-level await and return passes', () => {
  const script = [
    '// fan out over the files',
    "phase('Scan');",
    "const files = await agent('list files', { label: 'list' });",
    'const reviews = await parallel(files.split("\\n").map((file) => () => agent(file)));',
    `log(\`reviewed \${reviews.filter(Boolean).length}\`);`,
    'if (!args.strict) return { reviews };',
    'return { reviews, strict: true };',
  ].join('\n');
  assert.doesNotThrow(() => checkScriptBody(script));
});

test('sloppy-mode script syntax is accepted', () => {
  assert.doesNotThrow(() =>
    checkScriptBody('var x = 010; with (Math) { x = max(x, 1) }\nreturn x'),
  );
});

test('an empty or whitespace body is rejected', () => {
  assert.match(parseFailure(''), /the workflow script is empty/);
  assert.match(parseFailure('  \n\t '), /the workflow script is empty/);
});

test('a syntax error names line:column, the reason and the offending line', () => {
  const message = parseFailure('const a = 1;\nconst b = ;\nreturn a');
  assert.equal(
    message,
    [
      'the workflow script does not parse at 2:11: Unexpected token',
      '  2 | const b = ;',
      '    |           ^',
    ].join('\n'),
  );
});

test('an unterminated string is reported at its line', () => {
  assert.match(
    parseFailure('log(1)\n\nlog("open)'),
    /does not parse at 3:5: Unterminated string constant/,
  );
});

test('the caret follows tabs in the offending line', () => {
  const message = parseFailure('\tconst b = ;');
  assert.match(message, /\n {4}\| \t {10}\^$/);
});

test('a body still opening with export const meta gets a pointed message', () => {
  const script = '// header\n/* more */\nexport const meta = { name: "x" };\nreturn 1';
  const message = parseFailure(script);
  assert.match(message, /opens with `export const meta = \.\.\.`, but meta is data, not code/);
  assert.match(message, /pass it in the `meta` parameter/);
  assert.match(message, /`loom workflow run` reads such a header from the file automatically/);
});

test('other import and export statements say scripts cannot import', () => {
  assert.match(
    parseFailure('import fs from "node:fs";\nreturn 1'),
    /^workflow scripts cannot import or export \(`import` at 1:1\)/,
  );
  assert.match(parseFailure('const a = 1;\nexport default a;'), /\(`export` at 2:1\)/);
  assert.match(parseFailure('export const other = 1;'), /cannot import or export/);
  assert.match(parseFailure('import.meta.url'), /cannot import or export/);
});

test('dynamic import is rejected too, wherever it is', () => {
  const message = parseFailure(
    'const run = async () => {\n  const fs = await import("node:fs");\n};\nreturn 1',
  );
  assert.match(message, /cannot import or export \(`import` at 2:20\)/);
  assert.match(message, /\n {2}2 \| {3}const fs = await import\("node:fs"\);/);
});

test('import as a property name or in a string is not an import', () => {
  assert.doesNotThrow(() =>
    checkScriptBody('const x = { import: 1, export: 2 };\nlog("import x");\nreturn x.import'),
  );
});

test('checking never evaluates the script', () => {
  const marker = globalThis as { checkedScriptRan?: boolean };
  checkScriptBody('globalThis.checkedScriptRan = true; return 1');
  assert.equal(marker.checkedScriptRan, undefined);
});

test('opensWithMetaExport looks past whitespace, comments and a #! line only', () => {
  assert.equal(opensWithMetaExport('#!/usr/bin/env loom\n// c\nexport const meta = {}'), true);
  assert.equal(opensWithMetaExport('export   const\nmeta = {}'), true);
  assert.equal(opensWithMetaExport('log(1);\nexport const meta = {}'), false);
  assert.equal(opensWithMetaExport('export const metadata = {}'), false);
  assert.equal(opensWithMetaExport('"unterminated'), false);
});

test('positions count lines and columns from 1', () => {
  assert.equal(positionAt('ab\ncd', 4), '2:2');
  assert.equal(positionAt('ab\r\ncd', 5), '2:2');
});

test('long lines are excerpted around the column', () => {
  const line = `${'a'.repeat(300)}X${'b'.repeat(300)}`;
  const excerpt = sourceExcerpt(line, 300);
  const [text, caret] = excerpt.split('\n');
  assert.ok(text !== undefined && caret !== undefined);
  assert.ok(text.length < 140);
  assert.equal(text.indexOf('X'), caret.indexOf('^'));
  assert.match(text, /\| …a+Xb+…$/);
});
