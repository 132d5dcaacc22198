/**
 * `loom sessions list` and `loom sessions show ID`: what is stored under $LOOM_HOME/sessions;
 * the list shows the current workspace's sessions unless `--all`. Reads session files without
 * repairing or changing them.
 */
import { loomHome } from '../core/home.js';
import type { SessionEvent } from '../core/session-events.js';
import { loadSessionFile } from '../core/session-load.js';
import { SessionStore, type SessionSummary } from '../core/session-store.js';
import { realFolder } from '../core/workspace-folder.js';
import type { GoalChangeEvent } from '../goal/contract.js';
import { describeGoalChange } from './goal-output.js';
import { plainTable, tableTime } from './plain-table.js';
import { todoSummary } from './render-todos.js';
import { resolveWorkspace } from './session-workspace.js';

function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** A call made inside another (a `run_code` program's) is indented and names its enclosing call. */
function innerMark(data: Record<string, unknown>): string {
  return typeof data.parentCallId === 'string' ? `  ↳ in ${data.parentCallId}: ` : '';
}

/** A readable line for one event; events of plugins fall back to their JSON data. */
export function describeEvent(event: SessionEvent): string {
  const data = event.data as unknown as Record<string, unknown>;
  const head = `${String(event.seq).padStart(5)}  ${event.type.padEnd(18)}`;
  switch (event.type) {
    case 'user/message': {
      // A goal round's text starts with `[goal round N of M]` itself.
      const label = data.source === 'goal' ? '' : `[${data.delivery}] `;
      return `${head} ${label}${oneLine(String(data.text), 200)}`;
    }
    case 'goal/change':
      return `${head} ${describeGoalChange(event.data as GoalChangeEvent)}`;
    case 'assistant/message': {
      const calls = (data.toolCalls as Array<{ name: string }>).map((call) => call.name);
      const text = oneLine(String(data.text), 200);
      return `${head} ${text}${calls.length > 0 ? `${text ? ' ' : ''}→ ${calls.join(', ')}` : ''}`;
    }
    case 'tool/call':
      return `${head} ${innerMark(data)}${data.name} ${oneLine(JSON.stringify(data.arguments), 160)}`;
    case 'tool/result':
      return `${head} ${innerMark(data)}${data.name}${data.isError ? ' (error)' : ''}: ${oneLine(String(data.content), 160)}`;
    case 'turn/end': {
      const error = data.error as { message: string } | undefined;
      return `${head} ${data.reason}${error ? `: ${error.message}` : ''}`;
    }
    case 'request/header':
      return `${head} ${data.model}${Array.isArray(data.tools) ? `, ${data.tools.length} tools` : `, prompt ${data.prompt}`}`;
    case 'prompt/blob':
      return `${head} ${data.hash}, ${(data.tools as unknown[]).length} tools, ${String(data.system).length} characters of system prompt`;
    case 'prompt/stored':
      return `${head} ${data.hash}, kept in the prompt store`;
    case 'assistant/chunk':
    case 'step/start':
    case 'step/end':
    case 'turn/start':
      return `${head} ${data.turnId ?? ''}${data.step !== undefined ? ` step ${data.step}` : ''}`;
    default:
      return `${head} ${oneLine(JSON.stringify(data), 200)}`;
  }
}

const LIST_COLUMNS = ['ID', 'CREATED', 'FIRST PROMPT', 'TURNS'] as const;
const WORKSPACE_COLUMN = 'WORKSPACE';
const PROMPT_COLUMN_WIDTH = 60;

function turnCount(turns: number): string {
  return `${turns} ${turns === 1 ? 'turn' : 'turns'}`;
}

/** A row of the list: `depth` 0 for a session the user started. */
export interface SessionRow {
  summary: SessionSummary;
  depth: number;
  /** False for a child listed without its parent (marked `↳` instead of `└`). */
  parentListed: boolean;
}

const isChild = (summary: SessionSummary) =>
  summary.parentSession !== null || summary.delegationDepth > 0;

/**
 * The sessions users started, in creation order; with `children`, each followed by its children
 * (depth first), and a child whose parent is not listed (a `loom workflow run` child, or a parent
 * that is gone) in creation order among them, marked as a child.
 */
export function orderSessions(
  summaries: readonly SessionSummary[],
  children: boolean,
): SessionRow[] {
  const ids = new Set(summaries.map((summary) => summary.id));
  const childrenOf = new Map<string, SessionSummary[]>();
  for (const summary of summaries) {
    if (summary.parentSession === null || !ids.has(summary.parentSession)) continue;
    const siblings = childrenOf.get(summary.parentSession) ?? [];
    siblings.push(summary);
    childrenOf.set(summary.parentSession, siblings);
  }
  const ordered: SessionRow[] = [];
  const visit = (summary: SessionSummary, depth: number, parentListed: boolean) => {
    ordered.push({ summary, depth, parentListed });
    for (const child of childrenOf.get(summary.id) ?? []) visit(child, depth + 1, true);
  };
  for (const summary of summaries) {
    if (!isChild(summary)) visit(summary, 0, false);
    else if (children && (summary.parentSession === null || !ids.has(summary.parentSession))) {
      visit(summary, 1, false);
    }
  }
  return children ? ordered : ordered.filter(({ summary }) => !isChild(summary));
}

/**
 * The table of `loom sessions list`: a header row, then id, created, first prompt, turns; with
 * `withWorkspace`, the workspace last (`-` for a session that records none).
 */
export function formatSessionTable(rows: readonly SessionRow[], withWorkspace = false): string {
  const titles: string[] = [...LIST_COLUMNS, ...(withWorkspace ? [WORKSPACE_COLUMN] : [])];
  const cells = rows.map(({ summary, depth, parentListed }) => [
    `${depth > 0 ? `${'  '.repeat(depth - 1)}${parentListed ? '└' : '↳'} ` : ''}${summary.id}`,
    tableTime(summary.created),
    summary.error
      ? `(unreadable: ${oneLine(summary.error, PROMPT_COLUMN_WIDTH - 14)})`
      : oneLine(summary.firstPrompt, PROMPT_COLUMN_WIDTH),
    turnCount(summary.turns),
    ...(withWorkspace ? [summary.workspace ?? '-'] : []),
  ]);
  return plainTable(titles, cells);
}

export interface ListSessionsOptions {
  json?: boolean;
  /** Every workspace, not only the current one. */
  all?: boolean;
  /** Also the sessions of subagents, each under its parent. */
  children?: boolean;
  /** The current workspace; default the current folder. */
  cwd?: string;
}

/**
 * The sessions of the current workspace (`--cwd`, else the current folder, by real path); with
 * `all`, of every workspace, including sessions of older versions that record none.
 */
export function listSessions(options: ListSessionsOptions): void {
  const stored = new SessionStore(loomHome()).list();
  const workspace = realFolder(resolveWorkspace(options.cwd));
  const summaries =
    options.all === true ? stored : stored.filter((summary) => summary.workspace === workspace);
  const rows = orderSessions(summaries, options.children === true);
  if (options.json) {
    for (const { summary } of rows) process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  if (rows.length > 0) process.stdout.write(formatSessionTable(rows, options.all === true));
  else if (stored.length === 0) process.stderr.write('no sessions yet\n');
  else if (summaries.length === 0)
    process.stderr.write(`no sessions in this workspace (${workspace})\n`);
  const hidden = summaries.length - rows.length;
  if (hidden > 0) {
    process.stderr.write(
      `${hidden} child ${hidden === 1 ? 'session' : 'sessions'} of subagents not shown; --children lists them under their parent\n`,
    );
  }
  const elsewhere =
    options.all === true
      ? 0
      : stored.filter(
          (summary) =>
            summary.workspace !== workspace && (options.children === true || !isChild(summary)),
        ).length;
  if (elsewhere > 0) {
    process.stderr.write(
      `${elsewhere} ${elsewhere === 1 ? 'session' : 'sessions'} of other workspaces not shown (this one is ${workspace}); --all lists every workspace\n`,
    );
  }
}

export function showSession(id: string, options: { json?: boolean; chunks?: boolean }): void {
  const store = new SessionStore(loomHome());
  const { header, events } = loadSessionFile(store.pathOf(id));
  if (options.json) {
    for (const event of events)
      process.stdout.write(`${JSON.stringify({ sessionId: header.sessionId, ...event })}\n`);
    return;
  }
  const parent = header.parentSession ? `, parent ${header.parentSession}` : '';
  process.stdout.write(`session ${header.sessionId}, created ${header.created}${parent}\n`);
  let hiddenChunks = 0;
  for (const event of events) {
    if (event.type === 'assistant/chunk' && !options.chunks) {
      hiddenChunks += 1;
      continue;
    }
    process.stdout.write(`${describeEvent(event)}\n`);
  }
  if (hiddenChunks > 0) {
    process.stdout.write(
      `(${hiddenChunks} streamed assistant/chunk ${hiddenChunks === 1 ? 'event' : 'events'} hidden; --chunks shows them)\n`,
    );
  }
  process.stdout.write(todoSummary(events));
}
