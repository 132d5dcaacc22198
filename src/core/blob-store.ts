/**
 * The blob store: `$LOOM_HOME/blobs/<sha256>`, the bytes of images a session refers to by hash
 * (the log never holds them inline). Content-addressed: a blob is written once, atomically (a
 * temporary file, then a hard link that fails when the name exists), never through a symbolic
 * link, and never rewritten or deleted. Reading checks the hash, so a damaged blob is an error.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, LoomError } from '../base/errors.js';
import { createCompleteFile } from './complete-file.js';
import { serviceKey } from './context.js';
import { refuseSymbolicLink, requireRealFolder } from './safe-write.js';

/** A blob that a session names but the store lacks, or holds with other bytes. */
export type BlobErrorCode = 'BLOB_MISSING';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<BlobErrorCode, true> {}
}

/** The store's folder under `$LOOM_HOME`. */
export function blobsFolder(home: string): string {
  return join(home, 'blobs');
}

const HASH = /^[0-9a-f]{64}$/;

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class BlobStore {
  readonly folder: string;

  constructor(folder: string) {
    this.folder = folder;
  }

  /** Keeps `bytes` (once per content) and returns their hash; the file is on disk when it returns. */
  put(bytes: Uint8Array): string {
    const hash = sha256Of(bytes);
    mkdirSync(this.folder, { recursive: true });
    requireRealFolder(this.folder);
    const path = join(this.folder, hash);
    refuseSymbolicLink(path);
    // False when the name exists: a file of that name holds the same bytes (checked on reading).
    createCompleteFile(path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return hash;
  }

  /**
   * The bytes of `hash`. BLOB_MISSING (naming the hash, the folder and `owner`, such as the
   * session that refers to it) when the file is absent, unreadable or holds other bytes.
   */
  read(hash: string, owner?: string): Buffer {
    const whose = owner === undefined ? '' : ` (referred to by ${owner})`;
    if (!HASH.test(hash)) {
      throw new LoomError('BLOB_MISSING', `"${hash}" is not a blob hash${whose}`);
    }
    const path = join(this.folder, hash);
    let bytes: Buffer;
    try {
      refuseSymbolicLink(path);
      bytes = readFileSync(path);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      const problem = missing
        ? `is missing from ${this.folder}`
        : `cannot be read from ${this.folder}: ${errorMessage(error)}`;
      throw new LoomError(
        'BLOB_MISSING',
        `the image blob ${hash}${whose} ${problem}; the log keeps only its hash, so put the ` +
          'file back or continue with a model that takes no images',
      );
    }
    if (sha256Of(bytes) !== hash) {
      throw new LoomError(
        'BLOB_MISSING',
        `the image blob ${path}${whose} holds other bytes than its name says (damaged)`,
      );
    }
    return bytes;
  }
}

/** The process's blob store, provided on the runtime's root scope. */
export const blobStoreKey = serviceKey<BlobStore>('core/blob-store');
