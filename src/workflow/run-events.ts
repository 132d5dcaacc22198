/**
 * Following a run's `workflow/*` events as named records, and one plain line for each. A
 * follower subscribes before the run starts (its start event is emitted while `start` runs) and
 * keeps what arrives until the run id is known, then delivers only that run's events. Reads
 * events only; never changes a run.
 */

import { assertNever } from '../base/errors.js';
import type { Context, Disposer } from '../core/context.js';
import { formatCost } from '../llm/prices.js';
import { formatTokens } from '../llm/usage-text.js';
import {
  type WorkflowEventRecord,
  workflowAgentEnd,
  workflowAgentStart,
  workflowEnd,
  workflowLog,
  workflowPhase,
  workflowStart,
} from './contract.js';

/** Every workflow event emitted on `context` (and its child scopes), as a record with its name. */
export function onWorkflowEvents(
  context: Context,
  listener: (record: WorkflowEventRecord) => void,
): Disposer {
  const undo = [
    context.on(workflowStart, (event) => listener({ type: 'workflow/start', ...event })),
    context.on(workflowPhase, (event) => listener({ type: 'workflow/phase', ...event })),
    context.on(workflowLog, (event) => listener({ type: 'workflow/log', ...event })),
    context.on(workflowAgentStart, (event) => listener({ type: 'workflow/agent-start', ...event })),
    context.on(workflowAgentEnd, (event) => listener({ type: 'workflow/agent-end', ...event })),
    context.on(workflowEnd, (event) => listener({ type: 'workflow/end', ...event })),
  ];
  return () => {
    for (const dispose of undo) dispose();
  };
}

export interface RunFollower {
  /** Call once `start` returned: delivers what arrived meanwhile for `runId`, then follows live. */
  started(runId: string): void;
  dispose(): void;
}

export function followWorkflowRun(
  context: Context,
  deliver: (record: WorkflowEventRecord) => void,
): RunFollower {
  let runId: string | undefined;
  let early: WorkflowEventRecord[] | undefined = [];
  const dispose = onWorkflowEvents(context, (record) => {
    if (early) early.push(record);
    else if (record.runId === runId) deliver(record);
  });
  return {
    started(id) {
      runId = id;
      const pending = early ?? [];
      early = undefined;
      for (const record of pending) if (record.runId === id) deliver(record);
    },
    dispose,
  };
}

/** Kept here for the views that import it with the run events; it lives in llm/usage-text.ts. */
export { formatTokens };

/** `[name] ` for an event of a nested run (`workflow()`), else nothing. */
export function nestedPrefix(event: { workflow?: string }): string {
  return event.workflow !== undefined ? `[${event.workflow}] ` : '';
}

/** `8 slots`: how many agents of a run may run at once. */
export function slotsText(slots: number): string {
  return `${slots} slot${slots === 1 ? '' : 's'}`;
}

/** One plain line for an event: progress without a terminal, and a background job's output. */
export function describeWorkflowEvent(event: WorkflowEventRecord): string {
  switch (event.type) {
    case 'workflow/start': {
      const facts = [
        ...(event.phases.length > 0 ? [`phases: ${event.phases.join(', ')}`] : []),
        ...(event.slots !== undefined ? [slotsText(event.slots)] : []),
      ];
      const details = facts.length > 0 ? ` (${facts.join('; ')})` : '';
      return `workflow ${event.name}: ${event.description}${details}`;
    }
    case 'workflow/phase':
      return `${nestedPrefix(event)}phase: ${event.title}`;
    case 'workflow/log':
      return `${nestedPrefix(event)}log: ${event.message}`;
    case 'workflow/agent-start': {
      const phase = event.phase ? ` [${event.phase}]` : '';
      const journal = event.journaled ? ' (journal)' : '';
      return `${nestedPrefix(event)}agent #${event.seq} started: ${event.label}${phase}${journal}`;
    }
    case 'workflow/agent-end': {
      const cost = event.costUsd !== undefined ? `, ${formatCost(event.costUsd)}` : '';
      const usage = ` (${formatTokens(event.usage.input)} in / ${formatTokens(event.usage.output)} out${cost})`;
      const journal = event.journaled ? ' (journal)' : '';
      const reason = event.reason ? `: ${event.reason}` : '';
      return `${nestedPrefix(event)}agent #${event.seq} ${event.outcome}: ${event.label}${usage}${journal}${reason}`;
    }
    case 'workflow/end': {
      const error = event.error ? `: ${event.error.code}: ${event.error.message}` : '';
      return `workflow ${event.stopReason}: ${event.agentsStarted} agents started${error}`;
    }
    default:
      return assertNever(event, 'workflow event');
  }
}
