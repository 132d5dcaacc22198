/**
 * The system prompt and tool schemas of a request, logged once per distinct content: a
 * `prompt/blob` event holds them under a hash (or a `prompt/stored` event names the prompt store
 * file that does), and each `request/header` names that hash. Resolves the prompt a header
 * describes from the log alone, also for headers of older sessions that carry it inline. Must
 * never read anything but logged events and the store files they name.
 */
import { createHash } from 'node:crypto';
import { LoomError } from '../base/errors.js';
import type { ModelToolSpec } from '../llm/contract.js';
import { deepFreeze } from './deep-freeze.js';
import { readStoredPrompt } from './prompt-store.js';
import type { SessionEvent, SessionEventMap } from './session-events.js';
import { isSharedTool } from './system-prompt.js';

/** What a request sends besides its messages. */
export interface RequestPrompt {
  system: string;
  tools: ModelToolSpec[];
}

/** Hex characters of the sha256 kept as a blob's name (128 bits). */
const HASH_LENGTH = 32;

/** The blob name of a prompt: sha256 of its JSON, which is exactly what the blob stores. */
export function promptHash(prompt: RequestPrompt): string {
  return hashOf(JSON.stringify({ system: prompt.system, tools: prompt.tools }));
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

/** A prompt's blob, serialized and parsed once, shared by every log that records it. */
export interface PromptBlob {
  hash: string;
  /** Exactly `JSON.stringify(data)`. */
  json: string;
  /** The blob as a reload of the log gives it; deep-frozen, so logs can share it. */
  data: SessionEventMap['prompt/blob'];
}

/** Distinct prompts remembered; a process with more (a prompt that changes) just computes. */
const BLOB_CACHE_SIZE = 16;
const blobCache = new Map<string, PromptBlob>();
const toolIds = new WeakMap<object, number>();
let nextToolId = 1;

/**
 * The cache key of `prompt`, or undefined when it cannot be trusted to name the content: each
 * tool must be one of the frozen tools that prompt assembly shares (never changed), so its
 * identity names its content.
 */
function cacheKey(prompt: RequestPrompt): string | undefined {
  // The system text with its length in front, then one number a tool: no two prompts share a key.
  let key = `${prompt.system.length}:${prompt.system}`;
  for (const tool of prompt.tools) {
    if (!isSharedTool(tool)) return undefined;
    let id = toolIds.get(tool);
    if (id === undefined) {
      id = nextToolId++;
      toolIds.set(tool, id);
    }
    key += ` ${id}`;
  }
  return key;
}

/**
 * The blob of `prompt`: built once per distinct content while it stays among the recent ones,
 * so many agents sending the same prompt neither serialize, hash nor parse it again.
 */
export function promptBlob(prompt: RequestPrompt): PromptBlob {
  const key = cacheKey(prompt);
  const cached = key === undefined ? undefined : blobCache.get(key);
  if (cached) return cached;
  const text = JSON.stringify({ system: prompt.system, tools: prompt.tools });
  const hash = hashOf(text);
  const json = `{"hash":${JSON.stringify(hash)},${text.slice(1)}`;
  const blob: PromptBlob = { hash, json, data: deepFreeze(JSON.parse(json)) };
  if (key !== undefined) {
    if (blobCache.size >= BLOB_CACHE_SIZE) {
      const oldest = blobCache.keys().next().value;
      if (oldest !== undefined) blobCache.delete(oldest);
    }
    blobCache.set(key, blob);
  }
  return blob;
}

interface KnownBlobs {
  scanned: number;
  hashes: Set<string>;
}

/** Per event list (a log's memory only grows), the blob hashes seen so far. */
const knownBlobs = new WeakMap<readonly SessionEvent[], KnownBlobs>();

/** Whether `events` already hold a `prompt/blob` (or a `prompt/stored` reference) named `hash`. */
export function hasPromptBlob(events: readonly SessionEvent[], hash: string): boolean {
  let known = knownBlobs.get(events);
  if (!known || known.scanned > events.length) {
    known = { scanned: 0, hashes: new Set() };
    knownBlobs.set(events, known);
  }
  for (; known.scanned < events.length; known.scanned++) {
    const event = events[known.scanned];
    if (event?.type !== 'prompt/blob' && event?.type !== 'prompt/stored') continue;
    known.hashes.add((event.data as SessionEventMap['prompt/blob' | 'prompt/stored']).hash);
  }
  return known.hashes.has(hash);
}

/**
 * The system prompt and tools the request of `header` sent: inline in headers of sessions
 * written before blobs, otherwise the `prompt/blob` its hash names, which comes before it, or
 * the store file a `prompt/stored` event of that hash names, under `sessionFolder` (the folder
 * of the session file). Throws SESSION_CORRUPT when that blob is missing, and when a stored one
 * is named but no `sessionFolder` is given.
 */
export function requestPromptOf(
  events: readonly SessionEvent[],
  header: SessionEventMap['request/header'],
  sessionFolder?: string,
): RequestPrompt {
  if (!('prompt' in header)) return { system: header.system, tools: header.tools };
  for (const event of events) {
    if (event.type === 'prompt/blob') {
      const blob = event.data as SessionEventMap['prompt/blob'];
      if (blob.hash === header.prompt) return { system: blob.system, tools: blob.tools };
    }
    if (event.type !== 'prompt/stored') continue;
    const reference = event.data as SessionEventMap['prompt/stored'];
    if (reference.hash !== header.prompt) continue;
    if (sessionFolder === undefined) {
      throw new LoomError(
        'SESSION_CORRUPT',
        `request/header of turn ${header.turnId} step ${header.step} names the stored prompt ${reference.hash}: give the session file's folder to read it`,
      );
    }
    const blob = readStoredPrompt(sessionFolder, reference);
    return { system: blob.system, tools: blob.tools };
  }
  throw new LoomError(
    'SESSION_CORRUPT',
    `request/header of turn ${header.turnId} step ${header.step} names prompt ${header.prompt}, but no prompt/blob holds it`,
  );
}
