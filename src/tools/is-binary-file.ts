/**
 * Binary-file detection shared by the file tools: a NUL byte in the first 8 KiB marks a file as
 * binary, the same rule git and most editors use. Reads at most that prefix; never reads the
 * whole file, and never opens anything but a regular file.
 */
import type { FileHandle } from 'node:fs/promises';
import { openRegularFile } from './regular-file.js';

export const binaryProbeBytes = 8 * 1024;

export function containsNulByte(buffer: Uint8Array): boolean {
  return buffer.subarray(0, binaryProbeBytes).includes(0);
}

/** Throws a clear error for anything but a regular file (a FIFO, a socket, a device). */
export async function isBinaryFile(path: string): Promise<boolean> {
  const handle = await openRegularFile(path, path);
  try {
    return await startsBinary(handle);
  } finally {
    await handle.close();
  }
}

/** Reads the prefix of an open file from position 0; leaves the handle open. */
export async function startsBinary(handle: FileHandle): Promise<boolean> {
  const probe = Buffer.alloc(binaryProbeBytes);
  const { bytesRead } = await handle.read(probe, 0, binaryProbeBytes, 0);
  return containsNulByte(probe.subarray(0, bytesRead));
}
