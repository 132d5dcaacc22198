/**
 * Finds the children of a session that earlier processes left on disk: every session file whose
 * header names that session as its parent. Reads only the first line of each regular file; a
 * file it cannot read or parse is skipped (it vouches for nothing). It never writes or locks.
 */
import { closeSync, constants, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compareText } from '../base/text-order.js';

const SESSION_FILE_SUFFIX = '.jsonl';
const CHUNK_BYTES = 4096;
/** A header line is a few hundred bytes; anything longer than this is not one. */
const HEADER_LIMIT_BYTES = 64 * 1024;

export interface PersistedChild {
  id: string;
  /** The header's creation time (ISO 8601). */
  created: string;
}

/** The session files under `directory` whose header's `parentSession` is `parentSession`, oldest first. */
export function persistedChildren(directory: string, parentSession: string): PersistedChild[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const found: PersistedChild[] = [];
  for (const name of names) {
    if (!name.endsWith(SESSION_FILE_SUFFIX)) continue;
    const header = readHeader(join(directory, name));
    if (header?.parentSession !== parentSession) continue;
    found.push({ id: name.slice(0, -SESSION_FILE_SUFFIX.length), created: header.created });
  }
  return found.sort(
    (left, right) => compareText(left.created, right.created) || compareText(left.id, right.id),
  );
}

function readHeader(path: string): { parentSession: unknown; created: string } | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const line = firstLine(path);
    const record = JSON.parse(line) as { type?: unknown; data?: Record<string, unknown> };
    if (record.type !== 'session/header' || typeof record.data !== 'object') return undefined;
    const created = typeof record.data?.created === 'string' ? record.data.created : '';
    return { parentSession: record.data?.parentSession, created };
  } catch {
    return undefined;
  }
}

function firstLine(path: string): string {
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < HEADER_LIMIT_BYTES) {
      const chunk = Buffer.alloc(CHUNK_BYTES);
      const read = readSync(descriptor, chunk, 0, CHUNK_BYTES, total);
      if (read === 0) break;
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      if (newline >= 0) {
        chunks.push(chunk.subarray(0, newline));
        break;
      }
      chunks.push(chunk.subarray(0, read));
      total += read;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}
