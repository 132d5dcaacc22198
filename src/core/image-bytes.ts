/**
 * Recognises the image formats models take (PNG, JPEG, GIF, WebP) by their first bytes, and reads
 * their size in pixels from the header, without decoding. Pure; never throws: bytes it does not
 * recognise are `undefined`, a header it cannot read gives the type without a size.
 */

export interface ImageFacts {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  width?: number;
  height?: number;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean =>
  bytes.length >= at + prefix.length && prefix.every((value, index) => bytes[at + index] === value);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const GIF = [0x47, 0x49, 0x46, 0x38];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

function withSize(
  mediaType: ImageFacts['mediaType'],
  size: { width: number; height: number } | undefined,
): ImageFacts {
  if (!size || size.width <= 0 || size.height <= 0) return { mediaType };
  return { mediaType, width: size.width, height: size.height };
}

export function imageFacts(bytes: Uint8Array): ImageFacts | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (startsWith(bytes, PNG)) {
    // The IHDR chunk comes first: width and height, big-endian, at 16 and 20.
    const size =
      bytes.length >= 24 ? { width: view.getUint32(16), height: view.getUint32(20) } : undefined;
    return withSize('image/png', size);
  }
  if (startsWith(bytes, GIF)) {
    const size =
      bytes.length >= 10
        ? { width: view.getUint16(6, true), height: view.getUint16(8, true) }
        : undefined;
    return withSize('image/gif', size);
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return withSize('image/jpeg', jpegSize(bytes, view));
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) {
    return withSize('image/webp', webpSize(bytes, view));
  }
  return undefined;
}

/** The size in the first start-of-frame segment (SOF0…SOF15 but DHT, JPG and DAC). */
function jpegSize(
  bytes: Uint8Array,
  view: DataView,
): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const length = view.getUint16(offset + 2);
    const frame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (frame) return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    if (length < 2) return undefined;
    offset += 2 + length;
  }
  return undefined;
}

/** VP8 (lossy), VP8L (lossless) and VP8X (extended) keep the size in different places. */
function webpSize(
  bytes: Uint8Array,
  view: DataView,
): { width: number; height: number } | undefined {
  if (bytes.length < 30) return undefined;
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8 ') {
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    const width = 1 + ((bytes[24] ?? 0) | ((bytes[25] ?? 0) << 8) | ((bytes[26] ?? 0) << 16));
    const height = 1 + ((bytes[27] ?? 0) | ((bytes[28] ?? 0) << 8) | ((bytes[29] ?? 0) << 16));
    return { width, height };
  }
  return undefined;
}
