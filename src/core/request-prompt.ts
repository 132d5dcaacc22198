/**
 * The system prompt and tool schemas of a request, logged once per distinct content: a
 * `prompt/blob` event holds them under a hash, and each `request/header` names that hash.
 * Resolves the prompt a header describes from the log alone, also for headers of older sessions
 * that carry it inline. Must never read anything but logged events.
 */
import { createHash } from 'node:crypto';
import type { ModelToolSpec } from '../llm/contract.js';
import { LoomError } from './errors.js';
import type { SessionEvent, SessionEventMap } from './session-events.js';

/** What a request sends besides its messages. */
export interface RequestPrompt {
  system: string;
  tools: ModelToolSpec[];
}

/** Hex characters of the sha256 kept as a blob's name (128 bits). */
const HASH_LENGTH = 32;

/** The blob name of a prompt: sha256 of its JSON, which is exactly what the blob stores. */
export function promptHash(prompt: RequestPrompt): string {
  const text = JSON.stringify({ system: prompt.system, tools: prompt.tools });
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

interface KnownBlobs {
  scanned: number;
  hashes: Set<string>;
}

/** Per event list (a log's memory only grows), the blob hashes seen so far. */
const knownBlobs = new WeakMap<readonly SessionEvent[], KnownBlobs>();

/** Whether `events` already hold a `prompt/blob` named `hash`. */
export function hasPromptBlob(events: readonly SessionEvent[], hash: string): boolean {
  let known = knownBlobs.get(events);
  if (!known || known.scanned > events.length) {
    known = { scanned: 0, hashes: new Set() };
    knownBlobs.set(events, known);
  }
  for (; known.scanned < events.length; known.scanned++) {
    const event = events[known.scanned];
    if (event?.type !== 'prompt/blob') continue;
    known.hashes.add((event.data as SessionEventMap['prompt/blob']).hash);
  }
  return known.hashes.has(hash);
}

/**
 * The system prompt and tools the request of `header` sent: inline in headers of sessions
 * written before blobs, otherwise the `prompt/blob` its hash names, which comes before it.
 * Throws SESSION_CORRUPT when that blob is missing.
 */
export function requestPromptOf(
  events: readonly SessionEvent[],
  header: SessionEventMap['request/header'],
): RequestPrompt {
  if (!('prompt' in header)) return { system: header.system, tools: header.tools };
  for (const event of events) {
    if (event.type !== 'prompt/blob') continue;
    const blob = event.data as SessionEventMap['prompt/blob'];
    if (blob.hash === header.prompt) return { system: blob.system, tools: blob.tools };
  }
  throw new LoomError(
    'SESSION_CORRUPT',
    `request/header of turn ${header.turnId} step ${header.step} names prompt ${header.prompt}, but no prompt/blob holds it`,
  );
}
