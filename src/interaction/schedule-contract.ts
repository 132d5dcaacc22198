/**
 * The schedules seam (layer 6): reminders a root agent sets for itself. The durable facts live
 * only in the session log (`schedule/create`, `schedule/delete`, `schedule/fire`); timers are
 * local to the process that holds the session and are never written. Times are epoch
 * milliseconds; ids are `schedule-N`, numbered per session in creation order.
 */
import { UserError } from '../base/errors.js';

/** The `source` of a schedule's follow-up (and of the note about a missed one). */
export const SCHEDULE_SOURCE = 'schedule';

export type ScheduleKind = 'once' | 'every';

export interface Schedule {
  id: string;
  prompt: string;
  kind: ScheduleKind;
  /** When it fires next. */
  dueAt: number;
  /** Set for `every`: the period in seconds. */
  everySeconds?: number;
  createdAt: number;
}

/** A schedule found due when the session was opened: `dueAt` is when it should have fired. */
export interface MissedSchedule extends Schedule {
  /** For a recurring one: when it fires next. */
  nextDueAt?: number;
}

export interface ScheduleCreateEvent {
  scheduleId: string;
  prompt: string;
  kind: ScheduleKind;
  dueAt: number;
  everySeconds?: number;
}

export interface ScheduleFireEvent {
  scheduleId: string;
  /** The time it was due. */
  dueAt: number;
  /** For `every`: when it fires again. Absent: the schedule is done (a one-shot). */
  nextDueAt?: number;
  /** It fell due while no process held the session: reported, not run. */
  missed?: true;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'schedule/create': ScheduleCreateEvent;
    'schedule/delete': { scheduleId: string };
    'schedule/fire': ScheduleFireEvent;
  }
}

export type ScheduleErrorCode = 'SCHEDULE_NOT_FOUND' | 'SCHEDULE_INVALID';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<ScheduleErrorCode, true> {}
}

/** Both codes are the caller's mistake: a bad request or an id with no pending schedule. */
export class ScheduleError extends UserError<ScheduleErrorCode> {}

/** Bounds on what a schedule may ask for. */
export const MIN_EVERY_SECONDS = 60;
/** A week: a recurring reminder slower than that is a calendar's job. */
export const MAX_EVERY_SECONDS = 7 * 24 * 60 * 60;
/** A one-shot may be due at most a year ahead. */
export const MAX_DELAY_SECONDS = 365 * 24 * 60 * 60;
/** Schedules one session may have pending at once. */
export const MAX_PENDING_SCHEDULES = 50;
export const MAX_PROMPT_CHARACTERS = 4000;

/**
 * Time as schedules see it: `now`, and a timer that calls back after `milliseconds` and returns
 * its cancel. The process clock's timers are unref'd: a pending schedule never keeps a process
 * alive by itself.
 */
export interface ScheduleClock {
  now(): number;
  setTimer(callback: () => void, milliseconds: number): () => void;
}
