/**
 * The script's `budget` global: `{total, spent(), remaining()}`, frozen and built outside the
 * script's realm. It only reads the figures the host last sent (fresh whenever the script
 * wakes); it never charges, and it never throws, even once the run is stopped.
 */
import type { HookHost } from './hooks.js';

export interface ScriptBudget {
  /** The ceiling in tokens, or null for a run without one. */
  readonly total: number | null;
  /** Input plus output tokens of every agent so far, live. */
  spent(): number;
  /** Tokens left before the ceiling: `Infinity` without one, never below 0. */
  remaining(): number;
}

export function createBudgetHook(
  host: Pick<HookHost, 'budgetTotal' | 'budgetSpent'>,
): ScriptBudget {
  const total = host.budgetTotal;
  return Object.freeze({
    total,
    spent: function spent(): number {
      return host.budgetSpent();
    },
    remaining: function remaining(): number {
      return total === null ? Number.POSITIVE_INFINITY : Math.max(0, total - host.budgetSpent());
    },
  });
}
