/**
 * The prompt store: a folder beside session files (`prompts/`) holding each distinct system
 * prompt and tool set once, as `<hash>.json`, for the many sessions that send the same (a
 * workflow's children). A session names what it uses with a `prompt/stored` event, by hash
 * alone: the file is always `prompts/<hash>.json` (logs written before carried that path as
 * `file` too; it is not read, so a log cannot point a reader elsewhere). Files are
 * content-addressed and appear complete or not at all; the store never rewrites or deletes one.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorMessage, LoomError } from '../base/errors.js';
import { createCompleteFile } from './complete-file.js';
import type { SessionEventMap } from './session-events.js';

/** The store's folder, beside the session files. */
export const PROMPT_STORE_FOLDER = 'prompts';

/** What a prompt hash is made of (hex digits); anything else is not a name in the store. */
const HASH_SHAPE = /^[0-9a-f]+$/;

/**
 * The store file of `hash` under `sessionFolder`. SESSION_CORRUPT when `hash` is not a hash, so
 * a crafted log cannot name a path outside the store.
 */
export function storedPromptPath(sessionFolder: string, hash: string): string {
  if (!HASH_SHAPE.test(hash)) {
    throw new LoomError(
      'SESSION_CORRUPT',
      `the stored prompt ${JSON.stringify(hash)} is not a prompt hash (hex digits)`,
    );
  }
  return join(sessionFolder, PROMPT_STORE_FOLDER, `${hash}.json`);
}

/** A blob as the store keeps it: `json` is exactly the text of the file. */
export interface StorablePrompt {
  hash: string;
  json: string;
}

/** Per session folder, the references of the files this thread wrote (or found) already. */
const stored = new Map<string, Map<string, SessionEventMap['prompt/stored']>>();

/**
 * Puts `blob` in the store of `sessionFolder` unless it is there, and returns the reference a
 * session logs (frozen, shared by the sessions that name the same file). The file is on disk
 * when this returns (before any request names it); a later session needs no file system call.
 */
export function storePrompt(
  sessionFolder: string,
  blob: StorablePrompt,
): SessionEventMap['prompt/stored'] {
  let references = stored.get(sessionFolder);
  if (references === undefined) {
    references = new Map();
    stored.set(sessionFolder, references);
  }
  let reference = references.get(blob.hash);
  if (reference === undefined) {
    const path = storedPromptPath(sessionFolder, blob.hash);
    mkdirSync(dirname(path), { recursive: true });
    // False when it exists: a file of that name holds the same content (its hash is checked on reading).
    createCompleteFile(path, blob.json);
    reference = Object.freeze({ hash: blob.hash });
    references.set(blob.hash, reference);
  }
  return reference;
}

/**
 * The blob a `prompt/stored` reference names, read from the store of `sessionFolder`.
 * SESSION_CORRUPT when it is missing, unreadable, or holds another hash.
 */
export function readStoredPrompt(
  sessionFolder: string,
  reference: SessionEventMap['prompt/stored'],
): SessionEventMap['prompt/blob'] {
  const path = storedPromptPath(sessionFolder, reference.hash);
  let blob: SessionEventMap['prompt/blob'];
  try {
    blob = JSON.parse(readFileSync(path, 'utf8')) as SessionEventMap['prompt/blob'];
  } catch (error) {
    throw new LoomError(
      'SESSION_CORRUPT',
      `the stored prompt ${reference.hash} cannot be read from ${path}: ${errorMessage(error)}`,
    );
  }
  if (blob?.hash !== reference.hash) {
    throw new LoomError(
      'SESSION_CORRUPT',
      `the stored prompt file ${path} holds ${String(blob?.hash)}, not ${reference.hash}`,
    );
  }
  return blob;
}
