/**
 * The in-process job service: checks, then starts background work, follows it to its one
 * settlement and keeps its unread output. Observers see the committed record before the owner's
 * notice (skipped while the owner waits on the job: the wait reports it). It must never start
 * work no controller can collect, nor let a producer ignoring `cancel` outlive the kill grace.
 */

import { errorMessage, UserError } from '../base/errors.js';
import type { BackgroundHooks, BackgroundOutcome, BackgroundWork } from '../core/background.js';
import type { Context, Disposer } from '../core/context.js';
import {
  type JobCaller,
  type JobController,
  JobError,
  type JobRead,
  type JobRecord,
  type JobService,
  jobSettled,
  jobStarted,
  type KillOptions,
} from './contract.js';
import { jobNotice } from './job-notice.js';
import { JobOutput } from './job-output.js';
import { isSettled, type JobLimits, resolveJobLimits, settledOutcome } from './job-settings.js';

export interface LocalJobServiceOptions extends Partial<JobLimits> {
  /** Where `job/start` and `job/end` are emitted: the runtime's root scope. */
  context: Context;
  /** Where a throwing controller is reported; must not throw. Default: one line on stderr. */
  reportError?: (message: string) => void;
}

interface Entry {
  record: JobRecord;
  owner: string;
  /** Released once the job settles. */
  hooks: BackgroundHooks | undefined;
  output: JobOutput;
  waiters: Set<() => void>;
  /** `wait` calls of the owner in progress: one of them reports the settlement instead of a notice. */
  ownerWaits: number;
  graceTimer?: NodeJS.Timeout;
}

const DEFAULT_KILL_REASON = 'stopped on request';
/** The longest timer Node keeps; a wait this long ends only by settlement or its signal. */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

const copy = (entry: Entry): JobRecord => ({ ...entry.record });

export class LocalJobService implements JobService {
  readonly limits: JobLimits;
  private readonly context: Context;
  private readonly reportError: (message: string) => void;
  private readonly controllers = new Map<string, JobController>();
  /** Owner, then job id. */
  private readonly jobs = new Map<string, Map<string, Entry>>();
  /** Owner, then kind: the last number handed out. */
  private readonly counters = new Map<string, Map<string, number>>();

  constructor(options: LocalJobServiceOptions) {
    this.context = options.context;
    this.limits = resolveJobLimits(options);
    this.reportError =
      options.reportError ?? ((message) => process.stderr.write(`loom: ${message}\n`));
  }

  start(work: BackgroundWork): { id: string } {
    const outputLimitBytes = this.admit(work);
    const { owner, kind } = work;
    const kinds = this.counters.get(owner) ?? new Map<string, number>();
    const number = (kinds.get(kind) ?? 0) + 1;
    const id = `${kind}-${number}`;
    kinds.set(kind, number);
    this.counters.set(owner, kinds);
    let hooks: BackgroundHooks;
    try {
      hooks = work.run(id);
    } catch (error) {
      if (kinds.get(kind) === number) kinds.set(kind, number - 1);
      const message = `${id} (${work.label}) could not start: ${errorMessage(error)}`;
      throw new JobError('JOB_START', message, { cause: error });
    }
    const entry: Entry = {
      record: { id, kind, label: work.label, owner, status: 'running', startedAt: Date.now() },
      owner,
      hooks,
      output: new JobOutput(outputLimitBytes),
      waiters: new Set(),
      ownerWaits: 0,
    };
    const owned = this.jobs.get(owner) ?? new Map<string, Entry>();
    owned.set(id, entry);
    this.jobs.set(owner, owned);
    this.tellController(owner, 'started', entry);
    this.context.emit(jobStarted, copy(entry));
    Promise.resolve(hooks.done).then(
      (outcome: BackgroundOutcome) => this.settle(entry, settledOutcome(outcome), true),
      (error: unknown) =>
        this.settle(entry, { status: 'failed', summary: errorMessage(error) }, true),
    );
    return { id };
  }

  get(id: string, caller: JobCaller): JobRecord {
    return copy(this.find(id, caller));
  }

  list(caller: JobCaller): JobRecord[] {
    if (caller === null) return [];
    return [...(this.jobs.get(caller)?.values() ?? [])].map(copy);
  }

  read(id: string, caller: JobCaller): JobRead {
    const entry = this.find(id, caller);
    this.drain(entry);
    return { output: entry.output.take(), record: copy(entry) };
  }

  peek(id: string, caller: JobCaller): JobRead {
    const entry = this.find(id, caller);
    this.drain(entry);
    return { output: entry.output.recent(), record: copy(entry) };
  }

  async wait(
    id: string,
    caller: JobCaller,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<JobRecord> {
    const entry = this.find(id, caller);
    if (isSettled(entry.record.status) || signal?.aborted) return copy(entry);
    entry.ownerWaits++;
    await new Promise<void>((resolve) => {
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        entry.ownerWaits--;
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        entry.waiters.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, Math.min(Math.max(0, timeoutMs), NO_TIMEOUT_MS));
      signal?.addEventListener('abort', finish, { once: true });
      entry.waiters.add(finish);
    });
    return copy(entry);
  }

  kill(id: string, caller: JobCaller, reason?: string): JobRecord {
    const entry = this.find(id, caller);
    this.stop(entry, reason ?? DEFAULT_KILL_REASON);
    return copy(entry);
  }

  async killAndWait(id: string, caller: JobCaller, options: KillOptions = {}): Promise<JobRecord> {
    const entry = this.find(id, caller);
    if (isSettled(entry.record.status)) return copy(entry);
    this.stop(entry, options.reason ?? DEFAULT_KILL_REASON);
    // The grace timer set by `stop` settles the job at the latest after the kill grace.
    return this.wait(id, caller, NO_TIMEOUT_MS, options.signal);
  }

  registerController(owner: string, controller: JobController): Disposer {
    if (this.controllers.has(owner)) {
      throw new UserError('INVALID_ARGUMENT', `${owner} already has a job controller`);
    }
    this.controllers.set(owner, controller);
    return () => {
      if (this.controllers.get(owner) !== controller) return;
      // Abandoned while the controller is still there, so it logs their ends.
      this.abandonAll(`its owner ${owner} has gone`, owner);
      this.controllers.delete(owner);
    };
  }

  async killAll(reason: string, owner?: string): Promise<void> {
    const targets = this.unsettled(owner);
    for (const entry of targets) this.stop(entry, reason);
    await Promise.all(targets.map((entry) => this.whenSettled(entry)));
  }

  /**
   * Cancels every unsettled job (or only `owner`'s) and records it as killed at once, without
   * waiting for its producer and without notices: for an owner that has gone, or a process
   * exiting, where nothing could wait or collect.
   */
  abandonAll(reason: string, owner?: string): void {
    for (const entry of this.unsettled(owner)) {
      this.stop(entry, reason);
      this.settle(
        entry,
        { status: 'killed', summary: 'stopped without waiting for it to end' },
        false,
      );
    }
  }

  running(owner?: string): JobRecord[] {
    return this.unsettled(owner).map(copy);
  }

  /** The checks before anything runs; returns the work's output limit. */
  private admit(work: BackgroundWork): number {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(work.kind)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `job kind ${JSON.stringify(work.kind)} must be a word`,
      );
    }
    if (!this.controllers.has(work.owner)) {
      throw new JobError(
        'NO_CONTROLLER',
        `no job controller collects the notices of ${work.owner}, so background work cannot start for it (is the jobs layer installed for this agent?)`,
      );
    }
    if (this.unsettled(work.owner).length >= this.limits.maxPerOwner) {
      throw new JobError(
        'JOB_CAP',
        `this agent already has ${this.limits.maxPerOwner} unfinished background jobs, the most it may have; wait for one to end (job_output with wait) or stop one (job_kill) first`,
      );
    }
    const outputLimitBytes = work.outputLimitBytes ?? this.limits.outputLimitBytes;
    if (!Number.isInteger(outputLimitBytes) || outputLimitBytes < 1) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `outputLimitBytes must be a positive whole number, got ${outputLimitBytes}`,
      );
    }
    return outputLimitBytes;
  }

  private unsettled(owner?: string): Entry[] {
    const owners = owner === undefined ? [...this.jobs.values()] : [this.jobs.get(owner)];
    return owners.flatMap((jobs) =>
      [...(jobs?.values() ?? [])].filter((entry) => !isSettled(entry.record.status)),
    );
  }

  private find(id: string, caller: JobCaller): Entry {
    const own = caller === null ? undefined : this.jobs.get(caller)?.get(id);
    if (own) return own;
    for (const jobs of this.jobs.values()) {
      if (jobs.has(id)) {
        throw new JobError(
          'NOT_OWNER',
          `job ${id} belongs to another agent; only its owner may read or stop it`,
        );
      }
    }
    const yours = this.list(caller).map((record) => record.id);
    const hint = yours.length === 0 ? 'you have no jobs' : `your jobs are ${yours.join(', ')}`;
    throw new JobError('UNKNOWN_JOB', `there is no job ${id}; ${hint}`);
  }

  private whenSettled(entry: Entry): Promise<void> {
    if (isSettled(entry.record.status)) return Promise.resolve();
    return new Promise((resolve) => entry.waiters.add(resolve));
  }

  private stop(entry: Entry, reason: string): void {
    if (entry.record.status !== 'running') return;
    entry.record.status = 'stopping';
    entry.record.reason = reason;
    try {
      entry.hooks?.cancel(reason);
    } catch (error) {
      this.reportError(`cancelling ${entry.record.id} failed: ${errorMessage(error)}`);
    }
    entry.graceTimer = setTimeout(() => {
      const summary = `it did not stop within ${this.limits.killGraceMs} ms of being asked to`;
      this.settle(entry, { status: 'killed', summary }, true);
    }, this.limits.killGraceMs);
  }

  private drain(entry: Entry): void {
    const hooks = entry.hooks;
    if (!hooks?.readOutput) return;
    try {
      const text = hooks.readOutput();
      if (typeof text === 'string') entry.output.append(text);
    } catch (error) {
      entry.output.append(`[could not read the output: ${errorMessage(error)}]\n`);
    }
  }

  /** Tells the owner's controller of a start or settlement; a failure is reported, never raised. */
  private tellController(owner: string, what: 'started' | 'settled', entry: Entry): void {
    const controller = this.controllers.get(owner);
    try {
      controller?.[what]?.(copy(entry));
    } catch (error) {
      this.reportError(`the job controller of ${owner} failed: ${errorMessage(error)}`);
    }
  }

  private settle(entry: Entry, outcome: BackgroundOutcome, notify: boolean): void {
    const { record } = entry;
    if (isSettled(record.status)) return;
    clearTimeout(entry.graceTimer);
    this.drain(entry);
    entry.hooks = undefined;
    record.status = record.status === 'stopping' ? 'killed' : outcome.status;
    record.summary = outcome.summary;
    record.endedAt = Date.now();
    const reportedByWait = entry.ownerWaits > 0;
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const resolve of waiters) resolve();
    this.tellController(entry.owner, 'settled', entry);
    this.context.emit(jobSettled, copy(entry));
    const controller = notify && !reportedByWait ? this.controllers.get(entry.owner) : undefined;
    if (!controller) return;
    try {
      controller.deliver(copy(entry), jobNotice(record, entry.output.hasUnread));
    } catch (error) {
      this.reportError(`the job controller of ${entry.owner} failed: ${errorMessage(error)}`);
    }
  }
}
