/**
 * A run kept on disk (see run-store.ts): opens a new run's folder or reopens a stopped one for a
 * resume (refusing a run that is live in another process), holds its journal, appends its events,
 * and wraps the run so that its `result` resolves only after `run.json` and `result.json` say how
 * the attempt ended. It never changes what the run does: a journal that cannot be written is
 * reported as a `workflow/log`, end files that cannot be written as a process warning (the
 * run's events have ended by then); neither fails the run.
 */

import { join } from 'node:path';
import { errorMessage, LoomError } from '../base/errors.js';
import type { Context, Disposer } from '../core/context.js';
import { acquireLockFile, type SessionLock } from '../core/session-lock.js';
import { addTokens } from '../llm/prices.js';
import {
  WorkflowError,
  type WorkflowLimits,
  type WorkflowMeta,
  type WorkflowResult,
  type WorkflowRun,
  type WorkflowStartRequest,
  workflowLog,
} from './contract.js';
import { onWorkflowEvents } from './run-events.js';
import { JOURNAL_FILE, type JournalDisk, RunJournal } from './run-journal.js';
import {
  createRunFolder,
  progressOf,
  RUN_FORMAT_VERSION,
  RUN_LOCK_FILE,
  RunEventsAppender,
  type RunRecord,
  readStoredRun,
  rewriteRunInputs,
  writeRunRecord,
  writeRunResult,
} from './run-store.js';

export interface KeptRunStart {
  home: string;
  runId: string;
  context: Context;
  request: WorkflowStartRequest;
  meta: WorkflowMeta;
  args: Record<string, unknown>;
  limits: WorkflowLimits;
  provider: string;
  /** The attempt's token ceiling (null: none). */
  budgetTokens: number | null;
  /** For tests: how journal lines reach the disk. */
  disk?: JournalDisk;
}

/** Kept runs of this process (any service) whose attempt has not ended: none can be resumed. */
const liveInThisProcess = new Set<string>();

function startingRecord(start: KeptRunStart, previous: RunRecord | undefined): RunRecord {
  const { request, meta, runId } = start;
  const scriptPath = request.scriptPath ?? previous?.scriptPath;
  const now = Date.now();
  return {
    version: RUN_FORMAT_VERSION,
    runId,
    name: meta.name,
    status: 'running',
    attempt: (previous?.attempt ?? 0) + 1,
    pid: process.pid,
    ...(scriptPath !== undefined ? { scriptPath } : {}),
    ...(request.model !== undefined ? { model: request.model } : {}),
    provider: start.provider,
    limits: start.limits,
    budgetTokens: start.budgetTokens,
    startedAt: previous?.startedAt ?? now,
    attemptStartedAt: now,
    agentsStarted: 0,
    journaled: 0,
    tokens: previous ? { ...previous.tokens } : { input: 0, output: 0 },
    ...(previous?.costUsd !== undefined ? { costUsd: previous.costUsd } : {}),
  };
}

/**
 * The run's lock (`run.lock` in its folder), held by the process running an attempt: a second
 * process resuming the same run at the same moment is refused, and the lock of a process that
 * died (a killed attempt) is taken over. The holder is told apart by pid and start time.
 */
function lockRun(folder: string, runId: string): SessionLock {
  const path = join(folder, RUN_LOCK_FILE);
  return acquireLockFile(
    path,
    (pid, takingOver) =>
      new WorkflowError(
        'INVALID_ARGUMENT',
        `run ${runId} is ${takingOver ? 'being taken over' : 'running'} in process ${pid}; ` +
          `wait for it to end or stop it before resuming (lock file ${path})`,
      ),
  );
}

/**
 * The stored run a resume continues, under its lock; refuses one whose attempt is still running
 * somewhere. The record is read again once the lock is held, so it is the last attempt's.
 */
function reopen(start: KeptRunStart): { folder: string; previous: RunRecord; lock: SessionLock } {
  const { runId } = start;
  if (liveInThisProcess.has(runId)) {
    throw new WorkflowError('INVALID_ARGUMENT', `run ${runId} is still running in this process`);
  }
  const lock = lockRun(readStoredRun(start.home, runId).folder, runId);
  try {
    const stored = readStoredRun(start.home, runId);
    const { record } = stored;
    if (record.status !== 'running') return { folder: stored.folder, previous: record, lock };
    // A killed attempt never wrote its end: what its completed calls paid is in the journal, and
    // what its other calls paid (and so the cost) is unknown.
    const { costUsd: _unknown, ...killed } = record;
    const previous = { ...killed, ...progressOf(stored.folder, record) };
    return { folder: stored.folder, previous, lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

export class KeptRun {
  readonly folder: string;
  readonly journal: RunJournal;
  private readonly start: KeptRunStart;
  private record: RunRecord;
  private readonly events: RunEventsAppender;
  private readonly stopFollowing: Disposer;
  private readonly lock: SessionLock;
  private finalized = false;

  /**
   * Throws a WorkflowError when the run cannot be kept (or resumed); nothing is left open. A
   * resume opens the journal and the events file before it changes any file of the run, so one
   * it refuses (a link there, say) leaves the run as it was.
   */
  constructor(start: KeptRunStart) {
    this.start = start;
    const { request } = start;
    let lock: SessionLock | undefined;
    let journal: RunJournal | undefined;
    let record: RunRecord | undefined;
    try {
      let previous: RunRecord | undefined;
      if (request.resumeRunId !== undefined) {
        const reopened = reopen(start);
        lock = reopened.lock;
        this.folder = reopened.folder;
        previous = reopened.previous;
      } else {
        record = startingRecord(start, undefined);
        this.folder = createRunFolder({
          home: start.home,
          record,
          meta: start.meta,
          script: request.script,
          args: start.args,
        });
        lock = lockRun(this.folder, start.runId);
      }
      journal = new RunJournal(join(this.folder, JOURNAL_FILE), {
        ...(start.disk ? { disk: start.disk } : {}),
        onFailure: (message) => this.log(message),
        onWarning: (message) => this.warn(message),
      });
      this.events = new RunEventsAppender(this.folder);
      if (previous !== undefined) {
        record = startingRecord(start, previous);
        rewriteRunInputs(this.folder, {
          meta: start.meta,
          script: request.script,
          args: start.args,
        });
        writeRunRecord(this.folder, record);
      }
    } catch (error) {
      journal?.closeNow();
      lock?.release();
      if (error instanceof LoomError) throw error;
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        `the run cannot be kept under ${join(start.home, 'runs')}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    this.journal = journal;
    this.record = record as RunRecord;
    this.lock = lock;
    liveInThisProcess.add(start.runId);
    this.stopFollowing = onWorkflowEvents(start.context, (record) => {
      if (record.runId === start.runId) this.events.append(record);
    });
  }

  /** A journal line not replayed, named with the run (as a `workflow/log`: stderr in the CLI). */
  private warn(message: string): void {
    this.log(`run ${this.start.runId}: ${message}`);
  }

  private log(message: string): void {
    this.start.context.emit(workflowLog, { runId: this.start.runId, time: Date.now(), message });
  }

  /**
   * `run`, whose result resolves once the attempt's end is on disk. Called once `run` has
   * emitted its `workflow/start`: the journal's lines that are not replayed are named now.
   */
  wrap(run: WorkflowRun): WorkflowRun {
    for (const warning of this.journal.warnings) this.warn(warning);
    const result = run.result.then(async (final) => {
      if (!this.finalized) {
        await this.journal.close();
        this.end(final);
      }
      return final;
    });
    return {
      id: run.id,
      result,
      cancel: (reason) => run.cancel(reason),
      dispose: () => run.dispose(),
      endNow: (reason) => {
        const final = run.endNow(reason);
        if (!this.finalized) {
          this.journal.closeNow();
          this.end(final);
        }
        return final;
      },
    };
  }

  private end(result: WorkflowResult): void {
    if (this.finalized) return;
    this.finalized = true;
    liveInThisProcess.delete(this.start.runId);
    this.stopFollowing();
    this.events.close();
    this.journal.closeNow();
    const { tokens, costUsd, code: _previousCode, ...rest } = this.record;
    // Cost adds up over the attempts while every one of them knew its own.
    const cost =
      (this.record.attempt === 1 || costUsd !== undefined) && result.costUsd !== undefined
        ? (costUsd ?? 0) + result.costUsd
        : undefined;
    this.record = {
      ...rest,
      status: result.stopReason,
      ...(result.error ? { code: result.error.code } : {}),
      endedAt: Date.now(),
      agentsStarted: result.agentsStarted,
      journaled: this.journal.hits,
      tokens: addTokens(tokens, result.usage),
      ...(cost !== undefined ? { costUsd: cost } : {}),
    };
    try {
      writeRunRecord(this.folder, this.record);
      writeRunResult(this.folder, result);
    } catch (error) {
      process.emitWarning(
        `loom: could not record how run ${this.record.runId} ended: ${errorMessage(error)}`,
      );
    }
    this.lock.release();
  }
}
