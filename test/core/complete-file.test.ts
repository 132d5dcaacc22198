import assert from 'node:assert/strict';
import { closeSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createCompleteFileForAppending } from '../../src/core/complete-file.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('createCompleteFileForAppending: the file appears whole and the descriptor appends to it', () => {
  const folder = temporaryFolder('loom-complete-file-');
  const path = join(folder, 'new.jsonl');
  const descriptor = createCompleteFileForAppending(path, 'header\n');
  assert.notEqual(descriptor, undefined);
  try {
    assert.equal(readFileSync(path, 'utf8'), 'header\n');
    writeSync(descriptor as number, 'next\n');
  } finally {
    closeSync(descriptor as number);
  }
  assert.equal(readFileSync(path, 'utf8'), 'header\nnext\n');
  assert.deepEqual(readdirSync(folder), ['new.jsonl'], 'no temporary file is left');
});

test('createCompleteFileForAppending: an existing file is left alone and undefined returned', () => {
  const folder = temporaryFolder('loom-complete-file-');
  const path = join(folder, 'taken.jsonl');
  writeFileSync(path, 'theirs\n');
  assert.equal(createCompleteFileForAppending(path, 'mine\n'), undefined);
  assert.equal(readFileSync(path, 'utf8'), 'theirs\n');
  assert.deepEqual(readdirSync(folder), ['taken.jsonl']);
});
