/**
 * How an image enters a session (`--image`, `@image.png`, an ACP image block, read_file, an MCP
 * result): recognised by its bytes, scaled down with `sharp` when it is larger than providers take
 * (loaded only then: it is native and slow to load), kept in the blob store, and returned as the
 * reference the log holds. Bytes that are no image Loom sends are a UserError naming `what`.
 */
import { readFileSync, statSync } from 'node:fs';
import { errorMessage, UserError } from '../base/errors.js';
import type { ImageReference } from '../llm/contract.js';
import type { BlobStore } from './blob-store.js';
import { type ImageFacts, imageFacts } from './image-bytes.js';

export interface ImageLimits {
  /** The longest edge in pixels a provider takes for every image of a request. */
  maxEdge: number;
  /** The most bytes of one image a provider takes. */
  maxBytes: number;
}

/**
 * 2,000 pixels: Anthropic refuses a longer edge once a request has many images (and scales
 * anything over 1,568 itself), OpenAI fits images into 2,048. 5 MB: Anthropic's limit for one
 * image, the smallest of the providers'.
 */
export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({
  maxEdge: 2_000,
  maxBytes: 5 * 1024 * 1024,
});

export const IMAGE_TYPES_TEXT = 'PNG, JPEG, GIF or WebP';

/** The facts of `bytes` as an image, or a UserError naming `what`. */
export function requireImage(bytes: Uint8Array, what: string): ImageFacts {
  const facts = imageFacts(bytes);
  if (!facts) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `${what} is not a ${IMAGE_TYPES_TEXT} image (its first bytes say otherwise); give one of those formats`,
    );
  }
  return facts;
}

/** Recognises, scales when needed, and keeps `bytes`; the reference the log holds. */
export async function keepImage(
  store: BlobStore,
  bytes: Uint8Array,
  what: string,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
): Promise<ImageReference> {
  let facts = requireImage(bytes, what);
  let kept = bytes;
  if (tooLarge(facts, kept.byteLength, limits)) {
    kept = await scaleDown(bytes, facts, what, limits);
    facts = requireImage(kept, `${what} (scaled)`);
  }
  const reference: ImageReference = {
    type: 'image',
    mediaType: facts.mediaType,
    blob: store.put(kept),
    bytes: kept.byteLength,
  };
  if (facts.width !== undefined && facts.height !== undefined) {
    reference.width = facts.width;
    reference.height = facts.height;
  }
  return reference;
}

function tooLarge(facts: ImageFacts, bytes: number, limits: ImageLimits): boolean {
  if (bytes > limits.maxBytes) return true;
  return Math.max(facts.width ?? 0, facts.height ?? 0) > limits.maxEdge;
}

type SharpModule = typeof import('sharp');

let loading: Promise<SharpModule['default']> | undefined;

function loadSharp(): Promise<SharpModule['default']> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}

/**
 * Fits the image inside `maxEdge`, in its own format (a GIF becomes a PNG of its first frame); if
 * that is still over `maxBytes`, a JPEG at falling quality.
 */
async function scaleDown(
  bytes: Uint8Array,
  facts: ImageFacts,
  what: string,
  limits: ImageLimits,
): Promise<Uint8Array> {
  try {
    const sharp = await loadSharp();
    const resized = () =>
      sharp(bytes, { animated: false }).rotate().resize({
        width: limits.maxEdge,
        height: limits.maxEdge,
        fit: 'inside',
        withoutEnlargement: true,
      });
    const format =
      facts.mediaType === 'image/jpeg' ? 'jpeg' : facts.mediaType === 'image/webp' ? 'webp' : 'png';
    let output = await resized().toFormat(format).toBuffer();
    for (const quality of [85, 70, 50, 30]) {
      if (output.byteLength <= limits.maxBytes) break;
      output = await resized().jpeg({ quality }).toBuffer();
    }
    if (output.byteLength > limits.maxBytes) {
      throw new Error(`it is still ${output.byteLength} bytes at the lowest quality`);
    }
    return new Uint8Array(output.buffer, output.byteOffset, output.byteLength);
  } catch (error) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `${what} is larger than models take (${limits.maxEdge} pixels a side, ${limits.maxBytes} bytes) and could not be scaled down: ${errorMessage(error)}`,
    );
  }
}

/** The largest image file Loom reads to attach (before scaling): 50 MB. */
export const MAX_IMAGE_FILE_BYTES = 50 * 1024 * 1024;

/**
 * The bytes of the image file at `path` (absolute), checked to be an image; a UserError naming
 * `what` (`--image photo.png`) when it is missing, not a regular file, too large or no image.
 */
export function readImageFile(path: string, what: string): Buffer {
  let bytes: Buffer;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw new Error('it is not a regular file');
    if (stats.size > MAX_IMAGE_FILE_BYTES) {
      throw new Error(
        `it is ${stats.size} bytes, more than the ${MAX_IMAGE_FILE_BYTES} Loom reads`,
      );
    }
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : errorMessage(error);
    throw new UserError('INVALID_ARGUMENT', `${what}: cannot read ${path}: ${reason}`);
  }
  requireImage(bytes, what);
  return bytes;
}
