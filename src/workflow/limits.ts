/**
 * The workflow engine's tunables: defaults and validation. Every field is an integer inside a
 * stated range; a bad or unknown field throws `WorkflowError('INVALID_ARGUMENT')` naming it. It
 * must never clamp or drop a value silently.
 */
import { WorkflowError, type WorkflowLimits } from './contract.js';

interface Range {
  minimum: number;
  maximum: number;
}

/** The accepted range of each field. */
export const LIMIT_RANGES: Readonly<Record<keyof WorkflowLimits, Range>> = {
  maxConcurrentAgents: { minimum: 1, maximum: 256 },
  maxTotalAgents: { minimum: 1, maximum: 100_000 },
  maxItemsPerCall: { minimum: 1, maximum: 1_000_000 },
  syncTimeoutMs: { minimum: 1, maximum: 600_000 },
  cancelGraceMs: { minimum: 1, maximum: 600_000 },
  maxScriptMemoryMb: { minimum: 16, maximum: 65_536 },
  maxResultBytes: { minimum: 1024, maximum: 1024 * 1024 * 1024 },
  maxRunMs: { minimum: 1, maximum: 2_147_483_647 },
  stallMs: { minimum: 1, maximum: 2_147_483_647 },
};

/**
 * Children at once by default, on every machine: a child waits on its model's network, and the
 * host spends well under a millisecond of CPU on each, so the machine's cores are not the limit.
 */
export const DEFAULT_CONCURRENCY = 8;

export function defaultLimits(): WorkflowLimits {
  return {
    maxConcurrentAgents: DEFAULT_CONCURRENCY,
    maxTotalAgents: 1000,
    maxItemsPerCall: 4096,
    syncTimeoutMs: 5000,
    cancelGraceMs: 5000,
    maxScriptMemoryMb: 256,
    maxResultBytes: 16 * 1024 * 1024,
    stallMs: 300_000,
  };
}

/**
 * `partial` over `base` (default: `defaultLimits()`), every given field checked. A field that is
 * `undefined` counts as not given.
 */
export function resolveLimits(
  partial: Partial<WorkflowLimits> | undefined,
  base: WorkflowLimits = defaultLimits(),
): WorkflowLimits {
  if (partial === undefined) return { ...base };
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) {
    throw new WorkflowError('INVALID_ARGUMENT', 'workflow limits must be an object');
  }
  const resolved: WorkflowLimits = { ...base };
  for (const [key, value] of Object.entries(partial)) {
    if (!Object.hasOwn(LIMIT_RANGES, key)) {
      const known = Object.keys(LIMIT_RANGES).join(', ');
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        `unknown workflow limit ${key} (known: ${known})`,
      );
    }
    if (value === undefined) continue;
    const field = key as keyof WorkflowLimits;
    const { minimum, maximum } = LIMIT_RANGES[field];
    if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < minimum ||
      value > maximum
    ) {
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        `workflow limit ${field} must be an integer from ${minimum} to ${maximum}, not ${String(value)}`,
      );
    }
    resolved[field] = value;
  }
  return resolved;
}
