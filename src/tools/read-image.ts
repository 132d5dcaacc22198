/**
 * read_file's image path: a PNG, JPEG, GIF or WebP file of the workspace becomes an image result
 * (kept in the blob store, scaled down when larger than providers take), which a model that takes
 * images sees and any other model reads described. Recognised by the file's first bytes, never by
 * its name. Files larger than `maxImageFileBytes` are refused before they are read whole.
 */
import { UserError } from '../base/errors.js';
import { blobStoreKey } from '../core/blob-store.js';
import { imageFacts } from '../core/image-bytes.js';
import { keepImage, MAX_IMAGE_FILE_BYTES } from '../core/image-intake.js';
import type { ToolExecution, ToolOutput } from '../core/tool-contract.js';
import { openRegularFile } from './regular-file.js';

/** The image result of `path`, or undefined when the file is not an image. */
export async function readImageFile(
  path: string,
  shown: string,
  execution: ToolExecution,
): Promise<ToolOutput | undefined> {
  const handle = await openRegularFile(path, shown);
  let bytes: Buffer;
  try {
    const probe = Buffer.alloc(64);
    const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
    if (!imageFacts(probe.subarray(0, bytesRead))) return undefined;
    const { size } = await handle.stat();
    if (size > MAX_IMAGE_FILE_BYTES) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `${shown} is an image of ${size} bytes, more than the ${MAX_IMAGE_FILE_BYTES} read_file reads`,
      );
    }
    bytes = await handle.readFile({ signal: execution.signal });
  } finally {
    await handle.close();
  }
  const store = execution.context.find(blobStoreKey);
  if (!store) throw new Error('no blob store is set up to keep the image');
  const original = imageFacts(bytes);
  const image = await keepImage(store, bytes, shown);
  const pixels =
    image.width !== undefined ? `, ${image.width}x${image.height} pixels` : ', size unknown';
  const scaled =
    image.bytes !== bytes.byteLength && original?.width !== undefined
      ? `, scaled down from ${original.width}x${original.height} pixels and ${bytes.byteLength.toLocaleString('en-US')} bytes`
      : '';
  return {
    content: `Image ${shown} (${image.mediaType}${pixels}, ${image.bytes.toLocaleString('en-US')} bytes${scaled})`,
    metadata: { path: shown, image: true },
    images: [image],
  };
}
