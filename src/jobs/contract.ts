/**
 * The jobs seam: the lifecycle of background work (a command, a child, a workflow) that runs
 * while its owner goes on. Ids are `<kind>-N` from 1 per owner session; the first settlement
 * wins; only the owner may read or kill a job; an owner's notice is delivered after every other
 * observer has seen the committed record. Producers reach it through core's `BackgroundRunner`.
 */

import { LoomError } from '../base/errors.js';
import type {
  BackgroundHooks,
  BackgroundRunner,
  BackgroundStatus,
  BackgroundWork,
} from '../core/background.js';
import { type Disposer, defineEmit, serviceKey } from '../core/context.js';

export type JobStatus = 'running' | 'stopping' | BackgroundStatus;

export interface JobRecord {
  id: string;
  kind: string;
  label: string;
  owner: string | null;
  status: JobStatus;
  /** Milliseconds since the epoch. */
  startedAt: number;
  endedAt?: number;
  /** The producer's summary once settled (the exit code, the child's answer, …). */
  summary?: string;
  /** Why it was killed, when it was. */
  reason?: string;
}

/** Takes an owner's completion notices; one per owner, registered by the owner's tools. */
export interface JobController {
  /** A job of its owner started: called as `jobStarted` is emitted, before it. Must not throw. */
  started?(record: JobRecord): void;
  /** A job of its owner settled, with the committed record: before `jobSettled`. Must not throw. */
  settled?(record: JobRecord): void;
  /** Must not throw. Called last, after the record is committed and observers have run. */
  deliver(record: JobRecord, notice: string): void;
}

export type JobErrorCode = 'NO_CONTROLLER' | 'JOB_CAP' | 'UNKNOWN_JOB' | 'NOT_OWNER' | 'JOB_START';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<JobErrorCode, true> {}
}

export class JobError extends LoomError<JobErrorCode> {}

export interface JobRead {
  /** Output since the previous read (with a marker where output was dropped over the limit). */
  output: string;
  record: JobRecord;
}

export interface KillOptions {
  /** Why it is stopped; shown in its status. */
  reason?: string;
  /** The caller's cancellation: stop waiting (the kill itself stands). */
  signal?: AbortSignal;
}

/** The caller of a job operation: an agent session, or `null` for the user / the process. */
export type JobCaller = string | null;

export interface JobService extends BackgroundRunner {
  start(work: BackgroundWork): { id: string };
  get(id: string, caller: JobCaller): JobRecord;
  list(caller: JobCaller): JobRecord[];
  /** Output since the last read of this job. */
  read(id: string, caller: JobCaller): JobRead;
  /**
   * The job's latest output, read or not (about the output limit), without marking anything
   * read: for a person watching, so the owner's next `read` still gets all it has not read.
   */
  peek(id: string, caller: JobCaller): JobRead;
  /** Resolves when the job settles or after `timeoutMs`, whichever is first; never rejects. */
  wait(id: string, caller: JobCaller, timeoutMs: number, signal?: AbortSignal): Promise<JobRecord>;
  /** Asks the job to stop; the record is `stopping` until the producer settles it as `killed`. */
  kill(id: string, caller: JobCaller, reason?: string): JobRecord;
  /**
   * Kills the job and resolves with its settled record: once the producer has stopped, at the
   * latest after the kill grace (then it is recorded as killed anyway). A job already settled is
   * returned as it is; an aborted `signal` resolves at once with the record as it is then. The
   * settlement is reported by this call, so the owner gets no notice of it. Never rejects after
   * the ownership check.
   */
  killAndWait(id: string, caller: JobCaller, options?: KillOptions): Promise<JobRecord>;
  /** Registers the collector of `owner`'s notices; jobs can only be started for owners that have one. */
  registerController(owner: string, controller: JobController): Disposer;
  /** Kills every running job (or only `owner`'s) and resolves when all have settled. */
  killAll(reason: string, owner?: string): Promise<void>;
  /** Running jobs, optionally of one owner. */
  running(owner?: string): JobRecord[];
}

export const jobServiceKey = serviceKey<JobService>('jobs/service');

export const jobStarted = defineEmit<JobRecord>('job/start');
/** The committed final record; emitted before the owner's notice is delivered. */
export const jobSettled = defineEmit<JobRecord>('job/end');

export type { BackgroundHooks, BackgroundWork };

declare module '../core/session-events.js' {
  interface SessionEventMap {
    /** A job this session owns started. */
    'job/start': { jobId: string; kind: string; label: string };
    /** A job this session owns settled. */
    'job/end': { jobId: string; status: BackgroundStatus; summary: string; reason?: string };
  }
}
