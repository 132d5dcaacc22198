/**
 * The words about schedules: the follow-up a due schedule sends, the one note about schedules
 * missed while no process held the session, the JSON view the tools return, the line
 * `loom run` prints for each pending one, and the block restated after a compaction. Pure
 * functions of schedules and a time.
 */
import type { MissedSchedule, Schedule } from './schedule-contract.js';

/** `[schedule schedule-1] PROMPT`: what the agent is woken with. */
export function firedText(schedule: Schedule): string {
  const every = schedule.everySeconds !== undefined ? `, every ${schedule.everySeconds}s` : '';
  return `[schedule ${schedule.id}${every}] ${schedule.prompt}`;
}

/** One note for every schedule that fell due while no process held the session. */
export function missedText(missed: readonly MissedSchedule[]): string {
  const lines = missed.map((schedule) => {
    const next =
      schedule.nextDueAt !== undefined
        ? `; it recurs, next at ${new Date(schedule.nextDueAt).toISOString()}`
        : '';
    return `missed: ${schedule.id} was due at ${new Date(schedule.dueAt).toISOString()} while no process held this session, so it did not run${next}. Its prompt: ${schedule.prompt}`;
  });
  lines.push('Decide whether it still matters now; it will not be reported again.');
  return lines.join('\n');
}

/** The JSON view the tools return. */
export function scheduleView(schedule: Schedule, now: number) {
  return {
    id: schedule.id,
    kind: schedule.kind,
    prompt: schedule.prompt,
    due_at: new Date(schedule.dueAt).toISOString(),
    due_in_seconds: Math.max(0, Math.round((schedule.dueAt - now) / 1000)),
    ...(schedule.everySeconds !== undefined ? { every_seconds: schedule.everySeconds } : {}),
  };
}

/** `5 min`, `40s`, `2 h 5 min`, `3 d 4 h`. */
export function formatWait(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** `schedule-1 in 5 min: PROMPT` (`, every 60s` for a recurring one), the prompt cut short. */
export function pendingLine(schedule: Schedule, now: number): string {
  const every = schedule.everySeconds !== undefined ? `, every ${schedule.everySeconds}s` : '';
  const prompt = schedule.prompt.replace(/\s+/g, ' ');
  const short = prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt;
  return `${schedule.id} in ${formatWait(schedule.dueAt - now)}${every}: ${short}`;
}

/** The most of a schedule's prompt its standing line repeats (`schedule_list` gives it whole). */
const STANDING_PROMPT_LIMIT = 200;

/**
 * The pending schedules restated after a compaction, soonest first: each one's id, when it fires
 * next (the time and how long from `now`), how often, and its prompt. Empty when none is pending.
 */
export function schedulesStandingText(schedules: readonly Schedule[], now: number): string {
  if (schedules.length === 0) return '';
  const lines = schedules.map((schedule) => {
    const kind =
      schedule.everySeconds !== undefined ? `every ${schedule.everySeconds}s` : schedule.kind;
    const next = `${new Date(schedule.dueAt).toISOString()} (in ${formatWait(schedule.dueAt - now)})`;
    const prompt = schedule.prompt.replace(/\s+/g, ' ');
    const shown =
      prompt.length > STANDING_PROMPT_LIMIT
        ? `${prompt.slice(0, STANDING_PROMPT_LIMIT - 1)}…`
        : prompt;
    return `- ${schedule.id} (${kind}), next at ${next}: ${shown}`;
  });
  return ['# Schedules', ...lines].join('\n');
}
