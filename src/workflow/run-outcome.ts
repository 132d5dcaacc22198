/**
 * How a run's ending is named to a person. A run whose script returned while some of its agents
 * failed or were cancelled is "completed with N failed agents", never a plain "completed": the
 * command's summary and exit code and the run report say the same. Pure; it never reads a run.
 */
import type { WorkflowResult } from './contract.js';

/** Agents that did not complete in a run whose script completed; 0 for any other ending. */
export function failedAgentsOf(result: Pick<WorkflowResult, 'stopReason' | 'failures'>): number {
  return result.stopReason === 'completed' ? result.failures.length : 0;
}

/** `completed`, `completed with 2 failed agents`, `error` or `cancelled`. */
export function describeEnding(result: Pick<WorkflowResult, 'stopReason' | 'failures'>): string {
  return result.stopReason === 'completed'
    ? describeCompleted(failedAgentsOf(result))
    : result.stopReason;
}

/** A completed run with `failed` agents that did not complete: `completed` when there are none. */
export function describeCompleted(failed: number): string {
  if (failed === 0) return 'completed';
  return `completed with ${failed} failed agent${failed === 1 ? '' : 's'}`;
}
