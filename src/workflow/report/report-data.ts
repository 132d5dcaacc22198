/**
 * What a run report is made from, read from the run's folder (`$LOOM_HOME/runs/RUN_ID/`):
 * `run.json`, `meta.json`, `script.js`, `args.json` through run-store's readers, plus
 * `events.ndjson` and `result.json`. It only reads: it never repairs, locks or changes a run. A
 * torn or foreign line of the events file is counted and skipped, never fatal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowEventRecord, WorkflowMeta, WorkflowResult } from '../contract.js';
import { JOURNAL_FILE, type JournalRecord, readJournalText } from '../run-journal.js';
import {
  EVENTS_FILE,
  progressOf,
  RESULT_FILE,
  type RunRecord,
  type RunSummary,
  readStoredRun,
  stateOf,
} from '../run-store.js';

export interface RunReportInput {
  folder: string;
  /** `run.json`; for a running or killed attempt, agents and tokens so far (from the journal). */
  record: RunRecord;
  state: RunSummary['state'];
  meta: WorkflowMeta;
  script: string;
  args: Record<string, unknown>;
  /** Every attempt's `workflow/*` events, in the order they were written. */
  events: WorkflowEventRecord[];
  /** Lines of `events.ndjson` that are not a workflow event (a line torn by a kill). */
  skippedEventLines: number;
  /** The latest attempt's result; absent while it runs, after it was killed, or when unwritten. */
  result?: WorkflowResult;
  /**
   * While an attempt runs or after it was killed: the calls its journal holds (completed, in the
   * order they completed). Its events may not be on disk yet (they are written in 64 KB chunks).
   */
  journal: JournalRecord[];
}

const EVENT_TYPES = new Set<string>([
  'workflow/start',
  'workflow/phase',
  'workflow/log',
  'workflow/agent-start',
  'workflow/agent-end',
  'workflow/end',
]);

const AGENT_EVENTS = new Set<string>(['workflow/agent-start', 'workflow/agent-end']);

/** The shape the report relies on: a known type, a time, and a whole seq on agent events. */
function isEventRecord(value: unknown): value is WorkflowEventRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.type !== 'string' || !EVENT_TYPES.has(record.type)) return false;
  if (typeof record.time !== 'number' || !Number.isFinite(record.time)) return false;
  return !AGENT_EVENTS.has(record.type) || Number.isSafeInteger(record.seq);
}

/** Parses an events file's text: its events, and how many lines were not events. */
export function parseEventLines(text: string): {
  events: WorkflowEventRecord[];
  skipped: number;
} {
  const events: WorkflowEventRecord[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped += 1;
      continue;
    }
    if (isEventRecord(value)) events.push(value);
    else skipped += 1;
  }
  return { events, skipped };
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function readAttemptJournal(folder: string, record: RunRecord): JournalRecord[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(folder, JOURNAL_FILE));
  } catch {
    return [];
  }
  return readJournalText(bytes).records.filter((line) => line.time >= record.attemptStartedAt);
}

function readResult(folder: string): WorkflowResult | undefined {
  const text = readOptional(join(folder, RESULT_FILE));
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<WorkflowResult> | null;
    if (typeof value !== 'object' || value === null || typeof value.stopReason !== 'string') {
      return undefined;
    }
    return value as WorkflowResult;
  } catch {
    return undefined;
  }
}

/**
 * Reads kept run `runId` under `home`. A malformed id, an unknown run or a damaged `run.json` is
 * a WorkflowError (`INVALID_ARGUMENT`) naming it.
 */
export function readRunReportInput(home: string, runId: string): RunReportInput {
  const stored = readStoredRun(home, runId);
  const { folder } = stored;
  const state = stateOf(stored.record);
  const record =
    stored.record.status === 'running'
      ? { ...stored.record, ...progressOf(folder, stored.record) }
      : stored.record;
  const { events, skipped } = parseEventLines(readOptional(join(folder, EVENTS_FILE)) ?? '');
  // While an attempt runs (or after it was killed) result.json is an earlier attempt's.
  const running = stored.record.status === 'running';
  const result = running ? undefined : readResult(folder);
  return {
    folder,
    record,
    state,
    meta: stored.meta,
    script: stored.script,
    args: stored.args,
    events,
    skippedEventLines: skipped,
    ...(result ? { result } : {}),
    journal: running ? readAttemptJournal(folder, stored.record) : [],
  };
}
