/**
 * The schedules of one root agent's session while this process holds it: the fold of its log
 * plus one local timer for the soonest due schedule. Creating, deleting and firing append to the
 * log and the fold follows the log, so what it lists is what a replay gives. A schedule that
 * fell due while no process held the session is logged as missed and reported once at open,
 * never run late as if on time. It must never fire after `dispose` or write to a closed log.
 */
import { type Disposer, serviceKey } from '../core/context.js';
import type { SessionEventMap } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import {
  MAX_DELAY_SECONDS,
  MAX_EVERY_SECONDS,
  MAX_PENDING_SCHEDULES,
  MAX_PROMPT_CHARACTERS,
  MIN_EVERY_SECONDS,
  type MissedSchedule,
  type Schedule,
  type ScheduleClock,
  ScheduleError,
  type ScheduleFireEvent,
} from './schedule-contract.js';
import { ScheduleFold } from './schedule-fold.js';
import { firedText, missedText } from './schedule-text.js';

export const scheduleServiceKey = serviceKey<ScheduleService>('interaction/schedules');

/** What `schedule_create` asks for: a prompt and exactly one of the three times. */
export interface ScheduleRequest {
  prompt: string;
  afterSeconds?: number;
  at?: string;
  everySeconds?: number;
}

export interface ScheduleServiceOptions {
  log: SessionLog;
  clock: ScheduleClock;
  /** Hands a due schedule's text to the agent (a follow-up that wakes it). Must not throw. */
  fire(text: string): void;
  /** Hands the agent the one note about schedules missed while no process held the session. */
  reportMissed(text: string): void;
}

/** Node's timers take at most this many milliseconds; a later schedule re-arms on waking. */
const LONGEST_TIMER = 2_147_483_647;

/** An ISO 8601 date and time with its zone: `2026-12-01T09:00:00Z`, `…T09:00+02:00`. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export class ScheduleService {
  private readonly fold = new ScheduleFold();
  private readonly options: ScheduleServiceOptions;
  private readonly stopFolding: Disposer;
  private cancelTimer: (() => void) | undefined;
  private firing = false;
  private disposed = false;
  /** The schedules found missed when this process opened the session. */
  readonly missedAtOpen: readonly MissedSchedule[];

  constructor(options: ScheduleServiceOptions) {
    this.options = options;
    for (const event of options.log.events) this.fold.apply(event);
    this.stopFolding = options.log.onAppend((event) => {
      this.fold.apply(event);
      if (!this.firing && event.type.startsWith('schedule/')) this.arm();
    });
    this.missedAtOpen = this.takeMissed();
    if (this.missedAtOpen.length > 0) options.reportMissed(missedText(this.missedAtOpen));
    this.arm();
  }

  /** Pending schedules, soonest first. */
  get schedules(): Schedule[] {
    return this.fold.schedules;
  }

  now(): number {
    return this.options.clock.now();
  }

  /** Checks `request` (errors name what is wrong), logs `schedule/create` and arms it. */
  create(request: ScheduleRequest): Schedule {
    const prompt = checkedPrompt(request.prompt);
    const given = (['afterSeconds', 'at', 'everySeconds'] as const).filter(
      (key) => request[key] !== undefined,
    );
    if (given.length !== 1) {
      throw new ScheduleError(
        'SCHEDULE_INVALID',
        `give exactly one of after_seconds, at or every_seconds${given.length === 0 ? '' : ` (got ${given.map(argumentName).join(' and ')})`}`,
      );
    }
    if (this.fold.schedules.length >= MAX_PENDING_SCHEDULES) {
      throw new ScheduleError(
        'SCHEDULE_INVALID',
        `this session already has ${MAX_PENDING_SCHEDULES} pending schedules; delete one first`,
      );
    }
    const now = this.now();
    const id = `schedule-${this.fold.schedulesCreated + 1}`;
    if (request.everySeconds !== undefined) {
      const every = checkedEvery(request.everySeconds);
      this.append('schedule/create', {
        scheduleId: id,
        prompt,
        kind: 'every',
        dueAt: now + every * 1000,
        everySeconds: every,
      });
    } else {
      const dueAt =
        request.at !== undefined
          ? checkedAt(request.at, now)
          : now + checkedAfter(request.afterSeconds as number) * 1000;
      this.append('schedule/create', { scheduleId: id, prompt, kind: 'once', dueAt });
    }
    return this.fold.find(id) as Schedule;
  }

  /** Removes a pending schedule (`SCHEDULE_NOT_FOUND` when there is none by that id). */
  delete(id: string): Schedule {
    const schedule = this.fold.find(id);
    if (!schedule) {
      const pending = this.fold.schedules.map((entry) => entry.id);
      throw new ScheduleError(
        'SCHEDULE_NOT_FOUND',
        `no pending schedule ${JSON.stringify(id)}; pending: ${pending.length > 0 ? pending.join(', ') : 'none'}`,
      );
    }
    this.append('schedule/delete', { scheduleId: id });
    return schedule;
  }

  /** Stops the timer and stops following the log; nothing fires after this. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.stopFolding();
  }

  /** Logs every schedule already due at open as missed; a recurring one re-arms after now. */
  private takeMissed(): MissedSchedule[] {
    if (this.options.log.closed) return [];
    const missed: MissedSchedule[] = [];
    this.logDue(true, (schedule, next) => {
      missed.push(next === undefined ? schedule : { ...schedule, nextDueAt: next });
    });
    return missed;
  }

  /** Fires every due schedule, then arms the timer for the next one. */
  private fireDue(): void {
    if (this.disposed || this.options.log.closed) return;
    this.logDue(false, (schedule) => this.options.fire(firedText(schedule)));
    this.arm();
  }

  /** Logs a `schedule/fire` for each schedule due now (soonest first), then hands it on. */
  private logDue(
    missed: boolean,
    handOn: (schedule: Schedule, nextDueAt: number | undefined) => void,
  ): void {
    const now = this.now();
    this.firing = true;
    try {
      for (const schedule of this.fold.schedules) {
        if (schedule.dueAt > now) break;
        const event: ScheduleFireEvent = { scheduleId: schedule.id, dueAt: schedule.dueAt };
        const next = nextDueAt(schedule, now);
        if (next !== undefined) event.nextDueAt = next;
        if (missed) event.missed = true;
        this.append('schedule/fire', event);
        handOn(schedule, next);
      }
    } finally {
      this.firing = false;
    }
  }

  private arm(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.disposed || this.options.log.closed) return;
    const soonest = this.fold.schedules[0];
    if (!soonest) return;
    const wait = Math.min(LONGEST_TIMER, Math.max(0, soonest.dueAt - this.now()));
    this.cancelTimer = this.options.clock.setTimer(() => {
      this.cancelTimer = undefined;
      this.fireDue();
    }, wait);
  }

  private append<Type extends 'schedule/create' | 'schedule/delete' | 'schedule/fire'>(
    type: Type,
    data: SessionEventMap[Type],
  ): void {
    this.options.log.append(type, data);
  }
}

/** A recurring schedule's next time after `now`, counted in whole periods from its due time. */
function nextDueAt(schedule: Schedule, now: number): number | undefined {
  if (schedule.kind !== 'every' || schedule.everySeconds === undefined) return undefined;
  const period = schedule.everySeconds * 1000;
  const periods = Math.floor((now - schedule.dueAt) / period) + 1;
  return schedule.dueAt + Math.max(1, periods) * period;
}

/** The process's clock; its timers are unref'd so a pending schedule never holds a process open. */
export const processClock: ScheduleClock = {
  now: () => Date.now(),
  setTimer(callback, milliseconds) {
    const timer = setTimeout(callback, milliseconds);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

function argumentName(key: 'afterSeconds' | 'at' | 'everySeconds'): string {
  return key === 'afterSeconds' ? 'after_seconds' : key === 'everySeconds' ? 'every_seconds' : 'at';
}

function checkedPrompt(prompt: unknown): string {
  const text = typeof prompt === 'string' ? prompt.trim() : '';
  if (text === '')
    throw new ScheduleError('SCHEDULE_INVALID', 'a schedule needs a non-empty prompt');
  if (text.length > MAX_PROMPT_CHARACTERS) {
    throw new ScheduleError(
      'SCHEDULE_INVALID',
      `a schedule's prompt may have at most ${MAX_PROMPT_CHARACTERS} characters, got ${text.length}`,
    );
  }
  return text;
}

function checkedAfter(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_DELAY_SECONDS) {
    throw new ScheduleError(
      'SCHEDULE_INVALID',
      `after_seconds must be a whole number from 1 to ${MAX_DELAY_SECONDS} (a year), got ${String(seconds)}`,
    );
  }
  return seconds;
}

function checkedEvery(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < MIN_EVERY_SECONDS || seconds > MAX_EVERY_SECONDS) {
    throw new ScheduleError(
      'SCHEDULE_INVALID',
      `every_seconds must be a whole number from ${MIN_EVERY_SECONDS} to ${MAX_EVERY_SECONDS} (a week), got ${String(seconds)}`,
    );
  }
  return seconds;
}

function checkedAt(at: string, now: number): number {
  const time = typeof at === 'string' && ISO_TIME.test(at) ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new ScheduleError(
      'SCHEDULE_INVALID',
      `at must be an ISO 8601 date and time with its zone, such as 2026-12-01T09:00:00Z, got ${JSON.stringify(at)}`,
    );
  }
  if (time <= now) {
    throw new ScheduleError(
      'SCHEDULE_INVALID',
      `at ${at} is not in the future (now is ${new Date(now).toISOString()})`,
    );
  }
  if (time - now > MAX_DELAY_SECONDS * 1000) {
    throw new ScheduleError('SCHEDULE_INVALID', `at ${at} is more than a year ahead`);
  }
  return time;
}
