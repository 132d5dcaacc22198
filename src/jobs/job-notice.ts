/**
 * The words a model reads about its jobs: the completion notice, the `[status: …]` line that
 * ends every `job_output`, the one-line listing, and the running jobs restated after a
 * compaction. Pure functions of records; they must never include output (the notice only says
 * that unread output is waiting).
 */
import type { JobRecord } from './contract.js';

function statusWithReason(record: JobRecord): string {
  if (record.status === 'killed' && record.reason !== undefined) {
    return `killed: ${record.reason}`;
  }
  return record.status;
}

/** `[status: running]`, `[status: completed] <summary>`, `[status: killed: <reason>]`, … */
export function statusLine(record: JobRecord): string {
  const head = `[status: ${statusWithReason(record)}]`;
  if (record.status === 'running' || record.status === 'stopping') return head;
  if (record.status === 'killed' && record.reason !== undefined) return head;
  return record.summary ? `${head} ${record.summary}` : head;
}

/** What the owner is told when a job settles: short, and pointing at unread output. */
export function jobNotice(record: JobRecord, hasUnreadOutput: boolean): string {
  const lines = [`[job ${record.id} ${statusWithReason(record)}] ${record.label}`];
  if (record.summary) lines.push(record.summary);
  if (hasUnreadOutput) lines.push(`It has unread output: read it with job_output.`);
  return lines.join('\n');
}

export function formatAge(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m`;
}

/** `bash-1  running  12s  npm test`: the age counts from the start to the end, or to now. */
export function listingLine(record: JobRecord, now: number): string {
  const age = formatAge((record.endedAt ?? now) - record.startedAt);
  return `${record.id}  ${statusWithReason(record)}  ${age}  ${record.label}`;
}

/**
 * The agent's unsettled jobs restated after a compaction, one listing line each (no output).
 * Empty when none is running.
 */
export function jobsStandingText(records: readonly JobRecord[], now: number): string {
  if (records.length === 0) return '';
  return [
    '# Background jobs',
    ...records.map((record) => `- ${listingLine(record, now)}`),
    'Each reports when it ends; read its output with job_output, stop it with job_kill.',
  ].join('\n');
}
