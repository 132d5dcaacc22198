import assert from 'node:assert/strict';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  createCompleteFileForAppendingInBackground,
  replaceWithCompleteFile,
} from '../../src/core/complete-file.js';
import { appendToFile, openForAppending } from '../../src/core/safe-write.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

/** A folder holding `name` as a symbolic link to a file outside it that says `outside`. */
function linkedFile(name: string): { path: string; outside: string } {
  const outside = join(temporaryFolder(), 'outside.txt');
  writeFileSync(outside, 'outside\n');
  const path = join(temporaryFolder(), name);
  symlinkSync(outside, path);
  return { path, outside };
}

test('safe writes: an append, an append with a kept descriptor and a replace refuse a symbolic link, naming it, and write nothing through it', () => {
  const { path, outside } = linkedFile('file.jsonl');
  const refusal = (error: unknown) => {
    assert.equal((error as { code?: string }).code, 'LINKED_FILE');
    assert.ok((error as Error).message.startsWith(`${path} is a symbolic link`));
    return true;
  };
  assert.throws(() => appendToFile(path, 'more\n'), refusal);
  assert.throws(() => openForAppending(path, { read: true }), refusal);
  assert.throws(() => replaceWithCompleteFile(path, 'whole\n'), refusal);
  assert.equal(readFileSync(outside, 'utf8'), 'outside\n');
});

test('safe writes: a file made in the background refuses an .incoming folder that is a link, and puts no bytes where it points', async () => {
  const folder = temporaryFolder();
  const elsewhere = temporaryFolder();
  symlinkSync(elsewhere, join(folder, '.incoming'));
  await assert.rejects(
    createCompleteFileForAppendingInBackground(join(folder, 'session.jsonl'), {
      content: () => 'secret session text\n',
      created: () => {},
    }),
    /\.incoming is not a folder \(a symbolic link\?\)/,
  );
  const files = readdirSync(elsewhere, { recursive: true, withFileTypes: true }).filter(
    (entry) => !entry.isDirectory(),
  );
  assert.deepEqual(files, [], 'no file was made where the link points');
  assert.deepEqual(readdirSync(folder), ['.incoming']);
});
