/**
 * `loom workspaces list`: the workspaces of `$LOOM_HOME/workspaces.json` with their session
 * counts (from the session headers) and when each was last used. Reads only; a registry that
 * cannot be read is an error naming the file, never replaced.
 */

import { compareText } from '../base/text-order.js';
import { loomHome } from '../core/home.js';
import { SessionStore } from '../core/session-store.js';
import type { WorkspaceEntry } from '../interaction/workspace-contract.js';
import { readWorkspaces } from '../interaction/workspace-registry.js';
import { plainTable, tableTime } from './plain-table.js';

export interface WorkspaceRow extends WorkspaceEntry {
  /** Sessions users started there. */
  sessions: number;
  /** Sessions of subagents there. */
  childSessions: number;
}

const COLUMNS = ['ID', 'NAME', 'SESSIONS', 'LAST USED', 'PATH'] as const;

/** The registered workspaces, most recently used first, each with its session counts. */
export function workspaceRows(home: string): WorkspaceRow[] {
  const workspaces = readWorkspaces(home);
  const counts = new Map<string, { sessions: number; childSessions: number }>();
  for (const summary of new SessionStore(home).list()) {
    if (summary.workspace === undefined) continue;
    const count = counts.get(summary.workspace) ?? { sessions: 0, childSessions: 0 };
    if (summary.parentSession !== null || summary.delegationDepth > 0) count.childSessions += 1;
    else count.sessions += 1;
    counts.set(summary.workspace, count);
  }
  return workspaces
    .map((entry) => ({
      ...entry,
      ...(counts.get(entry.path) ?? { sessions: 0, childSessions: 0 }),
    }))
    .sort(
      (left, right) =>
        compareText(right.lastUsed, left.lastUsed) || compareText(left.path, right.path),
    );
}

function sessionCount(row: WorkspaceRow): string {
  return row.childSessions > 0
    ? `${row.sessions} (+${row.childSessions} of subagents)`
    : String(row.sessions);
}

export function formatWorkspaceTable(rows: readonly WorkspaceRow[]): string {
  const cells = rows.map((row) => [
    row.id,
    row.name,
    sessionCount(row),
    tableTime(row.lastUsed),
    row.path,
  ]);
  return plainTable(COLUMNS, cells);
}

export function listWorkspaces(options: { json?: boolean }): void {
  const rows = workspaceRows(loomHome());
  if (options.json) {
    for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
    return;
  }
  if (rows.length === 0) process.stderr.write('no workspaces yet\n');
  else process.stdout.write(formatWorkspaceTable(rows));
}
