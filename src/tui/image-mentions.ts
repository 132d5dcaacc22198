/**
 * Images a prompt names: `@shot.png` mentions (a workspace path after `@`, as `@path` completion
 * writes them) and image file paths pasted or dropped into the prompt (absolute or `~/`, bare,
 * quoted, or with `\ ` escaped spaces, as terminals paste them). Each one that names an existing
 * file with an image extension is read, checked and kept in the blob store; the prompt's text
 * stays as written. Never writes the workspace; an unreadable or non-image file is a problem line.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { errorMessage } from '../base/errors.js';
import type { BlobStore } from '../core/blob-store.js';
import { keepImage, readImageFile } from '../core/image-intake.js';
import type { ImageReference } from '../llm/contract.js';

const EXTENSION = String.raw`\.(?:png|jpe?g|gif|webp)`;
/** `@path.png`: a mention, up to white space. */
const MENTION = new RegExp(
  String.raw`(?:^|\s)@((?:\\ |[^\s'"])+?${EXTENSION})(?=$|[\s,.;:!?)])`,
  'gi',
);
/** A pasted path: quoted, or bare with `\ ` escapes; absolute or from `~/`. */
const PASTED = new RegExp(
  String.raw`'((?:~/|/)[^']+?${EXTENSION})'|"((?:~/|/)[^"]+?${EXTENSION})"|(?:^|\s)((?:~/|/)(?:\\ |[^\s'"])+?${EXTENSION})(?=$|[\s,.;:!?)])`,
  'gi',
);

/** The image files `text` names that exist, as absolute paths, each once, in order. */
export function imagePathsIn(text: string, workspace: string): string[] {
  const found: Array<{ at: number; path: string }> = [];
  const absolute = (path: string) => {
    const unescaped = path.replace(/\\ /g, ' ');
    if (unescaped.startsWith('~/')) return resolve(homedir(), unescaped.slice(2));
    return isAbsolute(unescaped) ? unescaped : resolve(workspace, unescaped);
  };
  for (const match of text.matchAll(MENTION)) {
    if (match[1]) found.push({ at: match.index ?? 0, path: absolute(match[1]) });
  }
  for (const match of text.matchAll(PASTED)) {
    const path = match[1] ?? match[2] ?? match[3];
    if (path) found.push({ at: match.index ?? 0, path: absolute(path) });
  }
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.at - b.at)
    .map((entry) => entry.path)
    .filter((path) => {
      if (seen.has(path) || !existsSync(path)) return false;
      seen.add(path);
      return true;
    });
}

export interface AttachedImages {
  images: ImageReference[];
  /** One line per named image that could not be attached, saying why. */
  problems: string[];
}

/** Reads and keeps each image `text` names (see `imagePathsIn`). */
export async function attachImagesOf(
  text: string,
  workspace: string,
  store: BlobStore | undefined,
): Promise<AttachedImages> {
  const attached: AttachedImages = { images: [], problems: [] };
  const paths = imagePathsIn(text, workspace);
  if (paths.length === 0) return attached;
  if (!store) return { images: [], problems: ['no blob store is set up to keep images'] };
  for (const path of paths) {
    try {
      attached.images.push(await keepImage(store, readImageFile(path, path), path));
    } catch (error) {
      attached.problems.push(`${errorMessage(error)} (not attached)`);
    }
  }
  return attached;
}
