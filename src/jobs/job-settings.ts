/**
 * The job service's tunables with their defaults and validation, and the small rules every part
 * of the layer shares about a job's state. Invalid settings fail at construction, naming the
 * field; a producer's malformed outcome becomes a failure, never a crash.
 */

import { UserError } from '../base/errors.js';
import type { BackgroundOutcome, BackgroundStatus } from '../core/background.js';
import type { JobStatus } from './contract.js';

export interface JobLimits {
  /** Unsettled (running or stopping) jobs one owner may have at once. Default 10. */
  maxPerOwner: number;
  /** Unread output kept per job unless the work asks for its own limit. Default 1 MiB. */
  outputLimitBytes: number;
  /** How long a killed job's producer has to settle before it is recorded as killed anyway. Default 2000. */
  killGraceMs: number;
}

export const DEFAULT_JOB_LIMITS: Readonly<JobLimits> = {
  maxPerOwner: 10,
  outputLimitBytes: 1024 * 1024,
  killGraceMs: 2000,
};

export function resolveJobLimits(options: Partial<JobLimits>): JobLimits {
  const limits = { ...DEFAULT_JOB_LIMITS };
  for (const field of ['maxPerOwner', 'outputLimitBytes', 'killGraceMs'] as const) {
    const value = options[field];
    if (value === undefined) continue;
    const smallest = field === 'killGraceMs' ? 0 : 1;
    if (!Number.isInteger(value) || value < smallest) {
      throw new UserError(
        'INVALID_CONFIG',
        `jobs ${field} must be a whole number of at least ${smallest}, got ${String(value)}`,
      );
    }
    limits[field] = value;
  }
  return limits;
}

export function isSettled(status: JobStatus): status is BackgroundStatus {
  return status === 'completed' || status === 'failed' || status === 'killed';
}

/** A producer's outcome as the service records it; anything malformed counts as a failure. */
export function settledOutcome(outcome: unknown): BackgroundOutcome {
  const candidate = (outcome ?? {}) as Partial<BackgroundOutcome>;
  if (candidate.status === undefined || !isSettled(candidate.status)) {
    return { status: 'failed', summary: 'the job ended without a valid outcome' };
  }
  const summary = typeof candidate.summary === 'string' ? candidate.summary : '';
  return { status: candidate.status, summary };
}
