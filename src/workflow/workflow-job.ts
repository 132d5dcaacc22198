/**
 * A workflow run as background work: a job of kind `workflow` whose output is the run's progress
 * (phases, logs, agents starting and ending) and whose summary is the rendering the foreground
 * tool returns. The run starts only once the runner has accepted the job; it has no tool signal
 * (the job's cancel cancels it) and it is always disposed when it settles.
 */
import type { BackgroundOutcome, BackgroundRunner } from '../core/background.js';
import type { Context, Disposer } from '../core/context.js';
import { errorMessage } from '../core/errors.js';
import type { ToolOutput } from '../core/tool-contract.js';
import {
  type WorkflowResult,
  type WorkflowRun,
  type WorkflowService,
  type WorkflowStartRequest,
  workflowAgentEnd,
  workflowAgentStart,
  workflowEnd,
  workflowLog,
  workflowPhase,
  workflowStart,
} from './contract.js';

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
  }
}

/**
 * Progress lines of one run. Listening starts before the run does (its start event is emitted
 * while `start` runs); events seen before the run id is known are kept and filtered once it is.
 */
function watchProgress(context: Context) {
  let runId: string | undefined;
  let early: Array<{ runId: string; line: string }> = [];
  let unread = '';
  const add = (eventRunId: string, line: string) => {
    if (runId === undefined) early.push({ runId: eventRunId, line });
    else if (eventRunId === runId) unread += `${line}\n`;
  };
  const undo: Disposer[] = [
    context.on(workflowStart, (event) => {
      const phases = event.phases.length > 0 ? ` (phases: ${event.phases.join(', ')})` : '';
      add(event.runId, `started "${event.name}"${phases}`);
    }),
    context.on(workflowPhase, (event) => add(event.runId, `phase: ${event.title}`)),
    context.on(workflowLog, (event) => add(event.runId, `log: ${event.message}`)),
    context.on(workflowAgentStart, (event) =>
      add(event.runId, `agent #${event.seq} started: ${event.label}`),
    ),
    context.on(workflowAgentEnd, (event) => {
      const reason = event.reason ? ` (${event.reason})` : '';
      add(event.runId, `agent #${event.seq} ${event.outcome}: ${event.label}${reason}`);
    }),
    context.on(workflowEnd, (event) => {
      const error = event.error ? `: ${event.error.code}: ${event.error.message}` : '';
      add(event.runId, `ended ${event.stopReason} with ${event.agentsStarted} agents${error}`);
    }),
  ];
  return {
    follow(id: string) {
      runId = id;
      for (const entry of early) if (entry.runId === id) unread += `${entry.line}\n`;
      early = [];
    },
    take() {
      const text = unread;
      unread = '';
      return text;
    },
    stop() {
      for (const dispose of undo) dispose();
    },
  };
}
