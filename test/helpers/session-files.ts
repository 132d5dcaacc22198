/**
 * Reading what a run left in a LOOM_HOME: every session file, loaded, the session id a run
 * printed, and the tool results of a session's events (or of `--json` lines, which have the same
 * `type` and `data`), and the prompt each request of a session sent.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type RequestPrompt, requestPromptOf } from '../../src/core/request-prompt.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { type LoadedSession, loadSessionFile } from '../../src/core/session-load.js';

/** The session files under `home/sessions`, in name order; none when the folder is missing. */
export function sessionPaths(home: string): string[] {
  const folder = join(home, 'sessions');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => join(folder, name));
}

/** Every session of `home`, loaded. */
export function sessions(home: string): LoadedSession[] {
  return sessionPaths(home).map((path) => loadSessionFile(path));
}

type ToolResultData = SessionEvent<'tool/result'>['data'];

/** The data of each `tool/result`, optionally only of the tool `name`. */
export function toolResults(
  events: ReadonlyArray<{ type: string; data: unknown }>,
  name?: string,
): ToolResultData[] {
  return events
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data as ToolResultData)
    .filter((data) => name === undefined || data.name === name);
}

/** The objects of an NDJSON text (such as `loom run --json` output); blank lines are skipped. */
export function ndjsonLines<Line = { type: string; data: Record<string, unknown> }>(
  text: string,
): Line[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line);
}

/** The session id of the first `--json` line of `loom run`; fails the test when there is none. */
export function sessionIdOf(stdout: string): string {
  const first = JSON.parse(stdout.trim().split('\n')[0] ?? '{}') as { sessionId?: string };
  assert.ok(first.sessionId, `no session id in the output: ${stdout}`);
  return first.sessionId;
}

type RequestHeaderData = SessionEvent<'request/header'>['data'];

/**
 * Each request of `events` in order: its header and the system prompt and tools it sent;
 * `sessionFolder` (the session file's folder) for prompts kept in the prompt store.
 */
export function requestPrompts(
  events: ReadonlyArray<{ type: string; data: unknown }>,
  sessionFolder?: string,
): Array<RequestPrompt & { header: RequestHeaderData }> {
  const all = events as readonly SessionEvent[];
  return all
    .filter((event) => event.type === 'request/header')
    .map((event) => {
      const header = event.data as RequestHeaderData;
      return { header, ...requestPromptOf(all, header, sessionFolder) };
    });
}
