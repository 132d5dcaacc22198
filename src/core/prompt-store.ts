/**
 * The prompt store: a folder beside session files (`prompts/`) holding each distinct system
 * prompt and tool set once, as `<hash>.json`, for the many sessions that send the same (a
 * workflow's children). A session names what it uses with a `prompt/stored` event. Files are
 * content-addressed and appear complete or not at all; the store never rewrites or deletes one.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorMessage, LoomError } from '../base/errors.js';
import { createCompleteFile } from './complete-file.js';
import type { SessionEventMap } from './session-events.js';

/** The store's folder, beside the session files. */
export const PROMPT_STORE_FOLDER = 'prompts';

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
    const file = `${PROMPT_STORE_FOLDER}/${blob.hash}.json`;
    const path = join(sessionFolder, file);
    mkdirSync(dirname(path), { recursive: true });
    // False when it exists: a file of that name holds the same content (its hash is checked on reading).
    createCompleteFile(path, blob.json);
    reference = Object.freeze({ hash: blob.hash, file });
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
  const path = join(sessionFolder, reference.file);
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
