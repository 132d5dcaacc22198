/**
 * A workflow run as background work: a job of kind `workflow` whose output is the run's progress
 * (phases, logs, agents starting and ending) and whose summary is the rendering the foreground
 * tool returns. The run starts only once the runner has accepted the job; it has no tool signal
 * (the job's cancel cancels it) and it is always disposed when it settles.
 */

import { assertNever, errorMessage } from '../base/errors.js';
import type { BackgroundOutcome, BackgroundRunner } from '../core/background.js';
import type { Context } from '../core/context.js';
import type { ToolOutput } from '../core/tool-contract.js';
import type {
  WorkflowResult,
  WorkflowRun,
  WorkflowService,
  WorkflowStartRequest,
} from './contract.js';
import { describeWorkflowEvent, followWorkflowRun } from './run-events.js';

export interface WorkflowJobRequest {
  runner: BackgroundRunner;
  service: WorkflowService;
  /** Without a `signal`: the job owns cancellation. */
  request: WorkflowStartRequest;
  /** The agent session that owns the job. */
  owner: string;
  /** The foreground tool's rendering of a result. */
  render(result: WorkflowResult): ToolOutput;
  /** Where the service emits `workflow/*`; without it the job has no output. */
  context?: Context;
}

/** Starts the job; returns what the tool call answers. Throws when the runner or service refuses. */
export function startWorkflowJob(job: WorkflowJobRequest): string {
  const name = job.request.meta.name;
  const label = typeof name === 'string' && name !== '' ? name : 'workflow';
  const { id } = job.runner.start({
    kind: 'workflow',
    label,
    owner: job.owner,
    run: () => {
      const progress = job.context ? watchProgress(job.context) : undefined;
      let run: WorkflowRun;
      try {
        run = job.service.start(job.request);
      } catch (error) {
        progress?.stop();
        throw error;
      }
      progress?.follow(run.id);
      const done = run.result
        .then(
          (result) => outcomeOf(result, job.render(result)),
          (error: unknown): BackgroundOutcome => ({
            status: 'failed',
            summary: errorMessage(error),
          }),
        )
        .finally(() => {
          progress?.stop();
          run.dispose();
        });
      return {
        cancel: (reason) => run.cancel(reason ?? 'the job was killed'),
        done,
        readOutput: () => progress?.take() ?? '',
      };
    },
  });
  return `Started workflow "${label}" in the background as job ${id}. Read its progress with job_output (job_id "${id}"), stop it with job_kill; its result arrives as a message when it ends.`;
}

function outcomeOf(result: WorkflowResult, rendered: ToolOutput): BackgroundOutcome {
  const summary = typeof rendered === 'string' ? rendered : rendered.content;
  switch (result.stopReason) {
    case 'completed':
      return { status: 'completed', summary };
    case 'error':
      return { status: 'failed', summary };
    case 'cancelled':
      return { status: 'killed', summary };
    default:
      return assertNever(result.stopReason, 'workflow stop reason');
  }
}

/** Progress lines of one run, kept until the job's output is read. */
function watchProgress(context: Context) {
  let unread = '';
  const follower = followWorkflowRun(context, (record) => {
    unread += `${describeWorkflowEvent(record)}\n`;
  });
  return {
    follow: (runId: string) => follower.started(runId),
    take() {
      const text = unread;
      unread = '';
      return text;
    },
    stop: () => follower.dispose(),
  };
}
