/**
 * The last change to a request's messages before it is sent: each image a message refers to
 * becomes its bytes (base64, read from the blob store) for a model that takes images, or one line
 * of description appended to the message's text for one that does not. Pure over the messages and
 * the blobs, so a request is rebuilt from the log and the store alone. Messages without images are
 * passed on as they are (same objects). A missing blob throws BLOB_MISSING.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LoomError } from '../base/errors.js';
import {
  type ImageReference,
  imageDescription,
  type ModelClient,
  type ModelImage,
  type ModelMessage,
} from '../llm/contract.js';
import type { BlobStore } from './blob-store.js';
import { type Context, serviceKey } from './context.js';

/**
 * Whether a model spec takes images, from what the process knows of models (the catalog and
 * config's `models.NAME.images`); asked only when the client declares nothing itself.
 */
export const modelImagesKey = serviceKey<(spec: string) => boolean>('core/model-images');

/** The client's own `limits.images`, else the `core/model-images` service, else no. */
export function modelTakesImages(context: Context, model: ModelClient): boolean {
  const declared = model.limits?.images;
  if (declared !== undefined) return declared;
  return context.find(modelImagesKey)?.(model.id) ?? false;
}

export interface ImageViewOptions {
  takesImages: boolean;
  /** Where the bytes are; needed only when `takesImages` and a message has images. */
  blobs: BlobStore | undefined;
  /** Who refers to the blobs (`session ID`), for the error that names a missing one. */
  owner: string;
}

export function withImagesResolved(
  messages: readonly ModelMessage[],
  options: ImageViewOptions,
): ModelMessage[] {
  return messages.map((message) => {
    if (message.role === 'assistant' || !message.images || message.images.length === 0) {
      return message;
    }
    if (options.takesImages) {
      const images = message.images.map((image) => withData(image, options));
      return { ...message, images };
    }
    const { images, ...rest } = message;
    const lines = images.map(imageDescription).join('\n');
    return { ...rest, content: rest.content.length > 0 ? `${rest.content}\n${lines}` : lines };
  });
}

/**
 * Base64 texts of recent blobs, by folder and hash: a session sends its images with every request,
 * and reading and checking a blob of megabytes each time would cost more than the request's others.
 */
const recent = new Map<string, string>();
const RECENT_LIMIT = 16;

function withData(image: ModelImage, options: ImageViewOptions): ModelImage {
  const { data: _data, ...reference } = image;
  const store = options.blobs;
  if (!store) {
    throw new LoomError(
      'BLOB_MISSING',
      `no blob store is set up to read the image blob ${image.blob} of ${options.owner}`,
    );
  }
  const key = `${store.folder}\n${image.blob}`;
  let data = recent.get(key);
  // A blob removed since it was read is missing now, as it would be to a reloaded session.
  if (data === undefined || !existsSync(join(store.folder, image.blob))) {
    data = store.read(image.blob, options.owner).toString('base64');
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
    recent.set(key, data);
  }
  return { ...(reference as ImageReference), data };
}
