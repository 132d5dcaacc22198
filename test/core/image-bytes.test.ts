/**
 * Image recognition by first bytes and header sizes, for each format models take (made with sharp,
 * so they are the files a user has), and the blob store that keeps them by hash.
 */
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { BlobStore, sha256Of } from '../../src/core/blob-store.js';
import { imageFacts } from '../../src/core/image-bytes.js';
import { keepImage } from '../../src/core/image-intake.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const image = (format: 'png' | 'jpeg' | 'gif' | 'webp', width = 37, height = 21) =>
  sharp({ create: { width, height, channels: 3, background: '#123456' } })
    .toFormat(format)
    .toBuffer();

test('PNG, JPEG, GIF and WebP (lossy, lossless, extended) are recognised with their size', async () => {
  for (const format of ['png', 'jpeg', 'gif', 'webp'] as const) {
    assert.deepEqual(imageFacts(await image(format)), {
      mediaType: `image/${format}`,
      width: 37,
      height: 21,
    });
  }
  const lossless = await sharp({
    create: { width: 300, height: 5, channels: 4, background: '#00000080' },
  })
    .webp({ lossless: true })
    .toBuffer();
  assert.deepEqual(imageFacts(lossless), { mediaType: 'image/webp', width: 300, height: 5 });
  const extended = await sharp({
    create: { width: 40, height: 9, channels: 4, background: '#00000080' },
  })
    .webp()
    .withMetadata()
    .toBuffer();
  assert.deepEqual(imageFacts(extended), { mediaType: 'image/webp', width: 40, height: 9 });
});

test('bytes of no image format, and a cut header, are not guessed at', () => {
  assert.equal(imageFacts(Buffer.from('hello, world')), undefined);
  assert.equal(imageFacts(Buffer.from('%PDF-1.7\n')), undefined);
  assert.deepEqual(imageFacts(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), {
    mediaType: 'image/png',
  });
});

test('the blob store keeps bytes once under their sha256, refuses a link, and checks on reading', async () => {
  const folder = join(temporaryFolder('loom-blobs-'), 'blobs');
  const store = new BlobStore(folder);
  const bytes = await image('png');
  const hash = store.put(bytes);
  assert.equal(hash, sha256Of(bytes));
  assert.equal(store.put(bytes), hash, 'the same bytes, the same blob');
  assert.deepEqual(readFileSync(join(folder, hash)), bytes);
  assert.deepEqual(store.read(hash, 'session S'), bytes);

  const other = await image('gif');
  const target = join(temporaryFolder('loom-elsewhere-'), 'target');
  symlinkSync(target, join(folder, sha256Of(other)));
  assert.throws(() => store.put(other), { code: 'LINKED_FILE' });
  assert.ok(lstatSync(join(folder, sha256Of(other))).isSymbolicLink());

  const missing = 'a'.repeat(64);
  assert.throws(
    () => store.read(missing, 'session S'),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, 'BLOB_MISSING');
      assert.match(
        error.message,
        new RegExp(`${missing} \\(referred to by session S\\) is missing`),
      );
      return true;
    },
  );
  writeFileSync(join(folder, hash), 'damaged');
  assert.throws(() => store.read(hash), /holds other bytes/);
});

test('an image over the edge limit is scaled down in its own format before it is kept', async () => {
  const store = new BlobStore(join(temporaryFolder('loom-blobs-'), 'blobs'));
  const large = await image('png', 3000, 600);
  const kept = await keepImage(store, large, 'wide.png');
  assert.equal(kept.mediaType, 'image/png');
  assert.deepEqual([kept.width, kept.height], [2000, 400]);
  assert.deepEqual(imageFacts(store.read(kept.blob)), {
    mediaType: 'image/png',
    width: 2000,
    height: 400,
  });
  const small = await image('jpeg');
  const same = await keepImage(store, small, 'small.jpg');
  assert.equal(same.blob, sha256Of(small), 'an image within the limits is kept as it is');
  await assert.rejects(keepImage(store, Buffer.from('not an image'), 'notes.txt'), {
    code: 'INVALID_ARGUMENT',
    message: /notes\.txt is not a PNG, JPEG, GIF or WebP image/,
  });
});
