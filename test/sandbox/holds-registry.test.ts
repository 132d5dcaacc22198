/**
 * The sandbox's registry of placeholder holds: one folder per user in the temporary folder,
 * whatever the LOOM_HOME, made private, and refused (never used) when it is a link or others
 * may write it, since a hold another user could remove would let a placeholder go while a
 * command binds it.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readyHoldsFolder, sharedHoldsFolder } from '../../src/sandbox/holds-registry.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test("the registry is this user's folder in TMPDIR, made private", () => {
  const temporary = temporaryFolder('loom-holds-tmp-');
  const before = process.env.TMPDIR;
  process.env.TMPDIR = temporary;
  try {
    const folder = sharedHoldsFolder();
    assert.equal(folder, join(temporary, `loom-sandbox-holds-${process.getuid?.()}`));
    readyHoldsFolder(folder);
    assert.equal(lstatSync(folder).mode & 0o777, 0o700);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
});

test('a registry that cannot be made says to set TMPDIR', () => {
  const file = join(temporaryFolder('loom-holds-'), 'not-a-folder');
  writeFileSync(file, '');
  assert.throws(
    () => readyHoldsFolder(join(file, 'loom-sandbox-holds-0')),
    /registry of placeholder holds .* cannot be made \(.*\); set TMPDIR to a folder this user can write/,
  );
});

test('a registry others may write, or a link, is refused, saying to remove it', () => {
  const shared = join(temporaryFolder('loom-holds-'), 'open');
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  assert.throws(
    () => readyHoldsFolder(shared),
    /can be written by other users \(mode 777\); remove it/,
  );
  const linked = join(temporaryFolder('loom-holds-'), 'linked');
  symlinkSync(temporaryFolder('loom-holds-target-'), linked);
  assert.throws(() => readyHoldsFolder(linked), /is not a folder \(a symbolic link\?\); remove it/);
});
