import assert from 'node:assert/strict';
import {
  closeSync,
  existsSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  createCompleteFileForAppending,
  createCompleteFileForAppendingInBackground,
} from '../../src/core/complete-file.js';
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

describe('createCompleteFileForAppendingInBackground', () => {
  test('asks for the content once the temporary is open, then puts the file in place whole', async () => {
    const folder = temporaryFolder('loom-complete-file-');
    const path = join(folder, 'made.jsonl');
    let text = 'header\n';
    let descriptor: number | undefined;
    const made = createCompleteFileForAppendingInBackground(path, {
      content: () => text,
      created: (opened) => {
        assert.equal(readFileSync(path, 'utf8'), 'header\nadded meanwhile\n');
        descriptor = opened;
      },
    });
    text += 'added meanwhile\n';
    assert.equal(await made, 'created');
    assert.notEqual(descriptor, undefined);
    try {
      writeSync(descriptor as number, 'next\n');
    } finally {
      closeSync(descriptor as number);
    }
    assert.equal(readFileSync(path, 'utf8'), 'header\nadded meanwhile\nnext\n');
    assert.deepEqual(temporaries(folder), []);
  });

  test('no content: no file and no temporary', async () => {
    const folder = temporaryFolder('loom-complete-file-');
    const path = join(folder, 'given-up.jsonl');
    const made = createCompleteFileForAppendingInBackground(path, {
      content: () => undefined,
      created: () => assert.fail('nothing was to be made'),
    });
    assert.equal(await made, 'abandoned');
    assert.equal(existsSync(path), false);
    assert.deepEqual(temporaries(folder), []);
  });

  test('an existing file is left alone', async () => {
    const folder = temporaryFolder('loom-complete-file-');
    const path = join(folder, 'taken.jsonl');
    writeFileSync(path, 'theirs\n');
    const made = createCompleteFileForAppendingInBackground(path, {
      content: () => 'mine\n',
      created: () => assert.fail('the file existed'),
    });
    assert.equal(await made, 'exists');
    assert.equal(readFileSync(path, 'utf8'), 'theirs\n');
    assert.deepEqual(temporaries(folder), []);
  });
});

/** Temporary files left anywhere under `folder` (the background lanes' folders included). */
function temporaries(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) =>
    name.endsWith('.tmp'),
  );
}
