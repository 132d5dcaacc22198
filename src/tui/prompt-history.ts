/**
 * The prompt history of one workspace, kept under `LOOM_HOME/history/` as one JSON string per
 * line, so Up and Down reach earlier prompts across sessions. The newest entries are kept; an
 * unreadable line is skipped, never fatal.
 */

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendToFile } from '../core/safe-write.js';
import { realFolder } from '../core/workspace-folder.js';

const KEPT_ENTRIES = 500;

export function historyFileOf(home: string, cwd: string): string {
  const key = createHash('sha256').update(realFolder(cwd)).digest('hex').slice(0, 16);
  return join(home, 'history', `${key}.jsonl`);
}

export function readHistory(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const entry: unknown = JSON.parse(line);
      if (typeof entry === 'string') entries.push(entry);
    } catch {
      // A torn last line from a crash: skip it.
    }
  }
  return entries.slice(-KEPT_ENTRIES);
}

export function appendHistory(path: string, entry: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  appendToFile(path, `${JSON.stringify(entry)}\n`);
}
