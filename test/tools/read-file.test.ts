import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readFileTool } from '../../src/tools/read-file.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

function setup(options: { maxOutputBytes?: number; defaultLineLimit?: number } = {}) {
  const workspace = temporaryWorkspace();
  const tool = readFileTool({ workspace, ...options });
  const read = async (args: Record<string, unknown>) =>
    contentOf(await tool.execute(args, fakeExecution()));
  return { workspace, tool, read };
}

const tenLines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n');

test('returns numbered lines', async () => {
  const { workspace, read } = setup();
  writeFileSync(join(workspace.root, 'a.txt'), 'alpha\r\nbeta\n');
  assert.equal(await read({ path: 'a.txt' }), '    1\talpha\n    2\tbeta');
});

test('offset and limit select a window and say how much remains', async () => {
  const { workspace, read } = setup();
  writeFileSync(join(workspace.root, 'ten.txt'), tenLines);
  assert.equal(
    await read({ path: 'ten.txt', offset: 3, limit: 2 }),
    '    3\tline 3\n    4\tline 4\n… 6 more lines; call again with offset 5',
  );
  assert.equal(await read({ path: 'ten.txt', offset: 9 }), '    9\tline 9\n   10\tline 10');
});

test('the default line limit applies when no limit is given', async () => {
  const { workspace, read } = setup({ defaultLineLimit: 4 });
  writeFileSync(join(workspace.root, 'ten.txt'), tenLines);
  assert.match(
    await read({ path: 'ten.txt' }),
    / {4}4\tline 4\n… 6 more lines; call again with offset 5$/,
  );
});

test('an offset past the end is an error', async () => {
  const { workspace, read } = setup();
  writeFileSync(join(workspace.root, 'ten.txt'), tenLines);
  await assert.rejects(
    read({ path: 'ten.txt', offset: 11 }),
    /offset 11 is past the end of ten\.txt \(10 lines\)/,
  );
});

test('long lines are cut with a note', async () => {
  const { workspace, read } = setup();
  writeFileSync(join(workspace.root, 'long.txt'), 'x'.repeat(2500));
  const content = await read({ path: 'long.txt' });
  assert.equal(content, `    1\t${'x'.repeat(2000)}… [line cut: 500 more characters]`);
});

test('the output byte cap stops early and says where to continue', async () => {
  const { workspace, read } = setup({ maxOutputBytes: 40 });
  writeFileSync(join(workspace.root, 'ten.txt'), tenLines);
  const content = await read({ path: 'ten.txt' });
  assert.match(
    content,
    /^ {4}1\tline 1\n {4}2\tline 2\n {4}3\tline 3\n… output reached the 40-byte cap; 7 more lines; call again with offset 4$/,
  );
});

test('binary files, folders, missing files and escapes are errors', async () => {
  const { workspace, read } = setup();
  writeFileSync(join(workspace.root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  mkdirSync(join(workspace.root, 'folder'));
  await assert.rejects(read({ path: 'image.bin' }), /image\.bin is a binary file/);
  await assert.rejects(read({ path: 'folder' }), /folder is a directory/);
  await assert.rejects(read({ path: 'missing.txt' }), /missing\.txt does not exist/);
  await assert.rejects(read({ path: '../outside.txt' }), /outside the workspace/);
});

test('an empty file says so', async () => {
  const { workspace, read } = setup();
  writeFileSync(join(workspace.root, 'empty.txt'), '');
  assert.equal(await read({ path: 'empty.txt' }), 'empty.txt is empty');
});

test('read_file is concurrency safe and describes every field', () => {
  const { tool } = setup();
  assert.equal(tool.concurrencySafe, true);
  const properties = tool.parameters.properties as Record<string, { description?: string }>;
  for (const field of ['path', 'offset', 'limit']) assert.ok(properties[field]?.description, field);
});
