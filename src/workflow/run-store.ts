/**
 * Where runs are kept: `$LOOM_HOME/runs/RUN_ID/` holds a run's script, meta, args, `run.json`
 * (status and totals), its journal, its events and its result. A new folder is built under a
 * hidden name, made durable and renamed into place, so a folder is complete or absent. Run ids
 * are checked before any path is joined. It never deletes a run.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
} from 'node:fs';
import { join } from 'node:path';
import { errorMessage, LoomError } from '../base/errors.js';
import { replaceWithCompleteFile } from '../core/complete-file.js';
import { openForAppending, openNewFile, writeFully } from '../core/safe-write.js';
import { addTokens, type TokenCount } from '../llm/prices.js';
import { WorkflowError, type WorkflowLimits, type WorkflowMeta } from './contract.js';
import { JOURNAL_FILE, readJournalText } from './run-journal.js';

export const RUN_ID_PATTERN = /^workflow-[0-9a-f-]{36}$/;
export const RUN_FORMAT_VERSION = 1;

export type RunStatus = 'running' | 'completed' | 'error' | 'cancelled';

/** `run.json`: rewritten (whole, atomically) when an attempt starts and when it ends. */
export interface RunRecord {
  version: typeof RUN_FORMAT_VERSION;
  runId: string;
  name: string;
  status: RunStatus;
  code?: string;
  /** 1 for the first run, one more for each resume. */
  attempt: number;
  /** The process of the latest attempt. */
  pid: number;
  scriptPath?: string;
  model?: string;
  provider?: string;
  limits: WorkflowLimits;
  budgetTokens: number | null;
  /** When the first attempt started. */
  startedAt: number;
  /** When the latest attempt started. */
  attemptStartedAt: number;
  /** When the latest attempt ended. */
  endedAt?: number;
  /** Agents of the latest attempt, journaled ones included. */
  agentsStarted: number;
  /** Calls the latest attempt answered from the journal. */
  journaled: number;
  /** Tokens paid by every attempt together; cache reads and writes (in `input` too) when any. */
  tokens: TokenCount;
  /** What every attempt cost together; absent while any of it is unknown (no `prices`). */
  costUsd?: number;
}

/**
 * A run as `loom workflow runs` shows it; `interrupted`: it says running, its process is gone.
 * While an attempt runs (or after it was killed) its agents and tokens are read from the
 * journal: the calls completed so far, and their tokens on top of the earlier attempts'.
 */
export interface RunSummary extends RunRecord {
  state: RunStatus | 'interrupted';
}

/** What a run was started with, as kept in its folder. */
export interface StoredRun {
  folder: string;
  record: RunRecord;
  meta: WorkflowMeta;
  script: string;
  args: Record<string, unknown>;
}

const RUNS = 'runs';
const RUN_FILE = 'run.json';
export const RESULT_FILE = 'result.json';
export const EVENTS_FILE = 'events.ndjson';
/** Held by the process running an attempt (`kept-run.ts`); absent between attempts. */
export const RUN_LOCK_FILE = 'run.lock';

/** Throws unless `runId` has the shape of a run id (so it is safe in a path). */
export function checkRunId(runId: string): string {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      `${JSON.stringify(runId)} is not a run id (they look like workflow-<uuid>; \`loom workflow runs\` lists them)`,
    );
  }
  return runId;
}

export function runFolder(home: string, runId: string): string {
  return join(home, RUNS, checkRunId(runId));
}

function writeDurable(path: string, content: string): void {
  const descriptor = openNewFile(path);
  try {
    writeFully(descriptor, Buffer.from(content));
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function syncFolder(path: string): void {
  const descriptor = openSync(path, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

const jsonText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export interface NewRun {
  home: string;
  record: RunRecord;
  meta: WorkflowMeta;
  script: string;
  args: Record<string, unknown>;
}

/** Makes the run's folder, complete and durable; returns its path. */
export function createRunFolder(run: NewRun): string {
  const runs = join(run.home, RUNS);
  const folder = runFolder(run.home, run.record.runId);
  const building = join(runs, `.new-${run.record.runId}`);
  mkdirSync(building, { recursive: true });
  writeDurable(join(building, 'script.js'), run.script);
  writeDurable(join(building, 'meta.json'), jsonText(run.meta));
  writeDurable(join(building, 'args.json'), jsonText(run.args));
  writeDurable(join(building, RUN_FILE), jsonText(run.record));
  writeDurable(join(building, JOURNAL_FILE), '');
  syncFolder(building);
  renameSync(building, folder);
  syncFolder(runs);
  return folder;
}

/** Replaces what a resumed attempt runs with (the script may have been edited). */
export function rewriteRunInputs(
  folder: string,
  inputs: Pick<NewRun, 'meta' | 'script' | 'args'>,
): void {
  replaceWithCompleteFile(join(folder, 'script.js'), inputs.script);
  replaceWithCompleteFile(join(folder, 'meta.json'), jsonText(inputs.meta));
  replaceWithCompleteFile(join(folder, 'args.json'), jsonText(inputs.args));
}

export function writeRunRecord(folder: string, record: RunRecord): void {
  replaceWithCompleteFile(join(folder, RUN_FILE), jsonText(record));
}

export function writeRunResult(folder: string, result: unknown): void {
  replaceWithCompleteFile(join(folder, RESULT_FILE), jsonText(result));
}

function readJson(folder: string, name: string, runId: string): unknown {
  const path = join(folder, name);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? `run ${runId} has no ${name} (${path})`
        : `cannot read ${path}: ${errorMessage(error)}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WorkflowError('INVALID_ARGUMENT', `${path} is not JSON: ${errorMessage(error)}`);
  }
}

function readRecord(folder: string, runId: string): RunRecord {
  const record = readJson(folder, RUN_FILE, runId) as Partial<RunRecord> | null;
  if (
    typeof record !== 'object' ||
    record === null ||
    record.version !== RUN_FORMAT_VERSION ||
    record.runId !== runId
  ) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      `${join(folder, RUN_FILE)} is not a version ${RUN_FORMAT_VERSION} record of run ${runId}`,
    );
  }
  return record as RunRecord;
}

/** Reads a kept run's `run.json`; a missing or damaged one is a WorkflowError naming it. */
export function readRunRecord(home: string, runId: string): RunRecord {
  return readStoredRun(home, runId).record;
}

/** Reads a kept run; a missing or damaged one is a WorkflowError naming it. */
export function readStoredRun(home: string, runId: string): StoredRun {
  const folder = runFolder(home, runId);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      `no run ${runId} in ${join(home, RUNS)} (\`loom workflow runs\` lists them)`,
    );
  }
  if (!names.includes('script.js')) {
    throw new WorkflowError('INVALID_ARGUMENT', `run ${runId} has no script.js (${folder})`);
  }
  return {
    folder,
    record: readRecord(folder, runId),
    meta: readJson(folder, 'meta.json', runId) as WorkflowMeta,
    script: readFileSync(join(folder, 'script.js'), 'utf8'),
    args: readJson(folder, 'args.json', runId) as Record<string, unknown>,
  };
}

/** Whether process `pid` exists (one of another user's counts). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The state a record shows: a running record whose process is gone was interrupted. */
export function stateOf(record: RunRecord): RunSummary['state'] {
  if (record.status !== 'running') return record.status;
  return record.pid === process.pid || processIsAlive(record.pid) ? 'running' : 'interrupted';
}

/** What the journal says the running (or killed) attempt has done so far. */
export function progressOf(
  folder: string,
  record: RunRecord,
): Pick<RunRecord, 'agentsStarted' | 'tokens'> {
  let text: Buffer;
  try {
    text = readFileSync(join(folder, JOURNAL_FILE));
  } catch {
    return { agentsStarted: record.agentsStarted, tokens: record.tokens };
  }
  let tokens: TokenCount = { ...record.tokens };
  const { records } = readJournalText(text);
  for (const line of records) {
    if (line.time < record.attemptStartedAt) continue;
    tokens = addTokens(tokens, line.usage);
  }
  return { agentsStarted: records.length, tokens };
}

/** Every kept run, newest first; folders that are not readable runs are skipped. */
export function listRuns(home: string): RunSummary[] {
  let names: string[];
  try {
    names = readdirSync(join(home, RUNS));
  } catch {
    return [];
  }
  const runs: RunSummary[] = [];
  for (const name of names) {
    if (!RUN_ID_PATTERN.test(name)) continue;
    try {
      const folder = join(home, RUNS, name);
      const record = readRecord(folder, name);
      const state = stateOf(record);
      runs.push({
        ...record,
        ...(record.status === 'running' ? progressOf(folder, record) : {}),
        state,
      });
    } catch {
      // A folder another version made, or one damaged by hand: not a run this can show.
    }
  }
  return runs.sort((a, b) => b.startedAt - a.startedAt);
}

/** Characters of event lines held before they are written. */
const EVENTS_BUFFER = 64 * 1024;

/**
 * `events.ndjson`: a run's `workflow/*` events, appended across attempts. Lines are buffered and
 * written in chunks and at `close`; a killed process loses at most the unwritten chunk. Throws
 * only when the file is a symbolic link (LINKED_FILE); any other failure stops it.
 */
export class RunEventsAppender {
  private descriptor: number | undefined;
  private buffered = '';

  constructor(folder: string) {
    try {
      this.descriptor = openForAppending(join(folder, EVENTS_FILE));
    } catch (error) {
      if (error instanceof LoomError && error.code === 'LINKED_FILE') throw error;
      this.descriptor = undefined;
    }
  }

  append(record: unknown): void {
    if (this.descriptor === undefined) return;
    this.buffered += `${JSON.stringify(record)}\n`;
    if (this.buffered.length >= EVENTS_BUFFER) this.flush();
  }

  private flush(): void {
    if (this.descriptor === undefined || this.buffered === '') return;
    const bytes = Buffer.from(this.buffered);
    this.buffered = '';
    try {
      writeFully(this.descriptor, bytes);
    } catch {
      this.close();
    }
  }

  close(): void {
    this.flush();
    if (this.descriptor === undefined) return;
    try {
      closeSync(this.descriptor);
    } catch {
      // The lines were written; nothing more to keep.
    }
    this.descriptor = undefined;
  }
}
