/**
 * Binary-file detection shared by the file tools: a NUL byte in the first 8 KiB marks a file as
 * binary, the same rule git and most editors use. Reads at most that prefix; never reads the
 * whole file.
 */
import { open } from 'node:fs/promises';

export const binaryProbeBytes = 8 * 1024;

export function containsNulByte(buffer: Uint8Array): boolean {
  return buffer.subarray(0, binaryProbeBytes).includes(0);
}

export async function isBinaryFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const probe = Buffer.alloc(binaryProbeBytes);
    const { bytesRead } = await handle.read(probe, 0, binaryProbeBytes, 0);
    return containsNulByte(probe.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
