/**
 * The token budget of one root workflow run, kept on the host: every child's input and output
 * tokens are charged here as its model requests finish, and the first charge that reaches the
 * total marks the budget exhausted and tells its listeners, once, in a later microtask (never
 * inside the charging caller, which may be a child's log append). It never refuses a charge:
 * tokens already spent are counted, so the overrun is what was in flight.
 */
import type { Disposer } from '../core/context.js';
import { WorkflowError } from './contract.js';

export class RunBudget {
  /** The ceiling in tokens, or null for a run without one. */
  readonly total: number | null;
  private spentTokens = 0;
  private isExhausted = false;
  private listeners: ReadonlyArray<() => void> = [];

  /** Throws `WorkflowError('INVALID_ARGUMENT')` unless `total` is null or a positive whole number. */
  constructor(total: number | null) {
    if (total !== null && !(Number.isSafeInteger(total) && total > 0)) {
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        `the token budget (budgetTokens) must be a positive whole number of tokens, not ${String(total)}`,
      );
    }
    this.total = total;
  }

  /** Input plus output tokens charged so far. */
  get spent(): number {
    return this.spentTokens;
  }

  /** Whether the spent tokens have reached the total (never, without one). */
  get exhausted(): boolean {
    return this.isExhausted;
  }

  /** What is left before the total; `Infinity` without one, 0 once exhausted. */
  remaining(): number {
    return this.total === null ? Number.POSITIVE_INFINITY : Math.max(0, this.total - this.spent);
  }

  /** Adds `tokens` (input + output of one request, or a child's unreported rest). */
  charge(tokens: number): void {
    if (!(tokens > 0)) return;
    this.spentTokens += tokens;
    if (this.isExhausted || this.total === null || this.spentTokens < this.total) return;
    this.isExhausted = true;
    queueMicrotask(() => {
      for (const listener of this.listeners) listener();
    });
  }

  /** `listener` hears the exhaustion once; it must not throw. Returns the undo. */
  onExhausted(listener: () => void): Disposer {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((candidate) => candidate !== listener);
    };
  }

  /** Why children were cancelled and later calls refused, once exhausted. */
  reason(): string {
    return `the token budget of ${this.total} tokens is spent`;
  }
}
