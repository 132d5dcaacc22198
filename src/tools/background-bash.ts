/**
 * `bash` with `run_in_background`: the command becomes a job of kind `bash` in the scope's
 * background runner and the call returns its id at once. The command runs exactly as in the
 * foreground (workspace root, own process group, the same watchdog); its output is kept for
 * incremental reads. A timeout or a cancel kills the whole group, and nothing of the group
 * outlives the job: the watchdog ends what the shell leaves behind when the shell exits.
 */

import { errorMessage } from '../base/errors.js';
import type { BackgroundHooks, BackgroundOutcome } from '../core/background.js';
import { backgroundRunnerKey } from '../core/background.js';
import type { ToolExecution, ToolOutput } from '../core/tool-contract.js';
import { BoundedOutput } from './bounded-output.js';
import { recordGroup } from './process-group-log.js';
import type { RunSettings } from './run-settings.js';
import { type ShellExit, type ShellProcess, spawnShell } from './shell-process.js';

export interface BackgroundCommandRequest {
  command: string;
  timeoutMs: number;
  /** `outputLimit` caps the output kept between two reads (head and tail). */
  settings: RunSettings;
  execution: ToolExecution;
}

type StopCause = { kind: 'timeout' } | { kind: 'cancel'; reason?: string };

const LABEL_LIMIT = 200;
/** Characters of one piece of output kept to find a sandbox message cut between two pieces. */
const NOTE_OVERLAP = 200;

export function startBackgroundCommand(request: BackgroundCommandRequest): ToolOutput {
  const { command, execution } = request;
  const runner = execution.context.find(backgroundRunnerKey);
  if (!runner) {
    request.settings.launch?.ended();
    return {
      content:
        'run_in_background is not available here: no background job runner is installed. Run the command in the foreground instead.',
      isError: true,
    };
  }
  let pid: number | undefined;
  let started = false;
  let id: string;
  try {
    ({ id } = runner.start({
      kind: 'bash',
      label: command.length > LABEL_LIMIT ? `${command.slice(0, LABEL_LIMIT)}…` : command,
      owner: execution.agentId,
      run: (jobId) => {
        started = true;
        const job = runCommandJob(command, request.timeoutMs, request.settings, (shell) =>
          recordGroup(shell, execution, jobId),
        );
        pid = job.pid;
        return job.hooks;
      },
    }));
  } finally {
    // Refused work never started: its sandbox is released here.
    if (!started) request.settings.launch?.ended();
  }
  return {
    content: `Started background job ${id}: ${command}. Read its output with job_output (job_id "${id}"); you will be told when it ends.`,
    metadata: { jobId: id, pid: pid ?? null },
  };
}

/**
 * Starts the command; the hooks the runner keeps, and the shell's pid. `record` puts its group on
 * the session's record and returns what closes that record.
 */
export function runCommandJob(
  command: string,
  timeoutMs: number,
  settings: RunSettings,
  record?: (shell: ShellProcess) => { ended(): void } | undefined,
): { hooks: BackgroundHooks; pid: number | undefined } {
  let unread = new BoundedOutput(settings.outputLimit);
  const { launch } = settings;
  /** The sandbox's note on what it stopped, looked for in each piece of output (with the last). */
  let note: string | undefined;
  let previous = '';
  const onOutput = (text: string) => {
    unread.append(text);
    if (launch === undefined || note !== undefined) return;
    note = launch.explain(previous + text);
    previous = text.slice(-NOTE_OVERLAP);
  };
  const shell = spawnShell({
    shell: settings.shell,
    command,
    cwd: settings.cwd,
    env: settings.env,
    drainGraceMs: settings.drainGraceMs,
    onOutput,
    ...(launch ? { launcher: launch.launcher } : {}),
  });
  const group = record?.(shell);
  let stoppedBy: StopCause | undefined;
  const stop = (cause: StopCause) => {
    if (stoppedBy !== undefined || !shell.kill()) return;
    stoppedBy = cause;
    // The group is killed now; the record says so before the job's own end.
    group?.ended();
  };
  const timeoutTimer = setTimeout(() => stop({ kind: 'timeout' }), timeoutMs);
  const done = shell.ended
    .then(
      (exit) => {
        const outcome = outcomeOf(stoppedBy, exit, timeoutMs);
        if (note === undefined || stoppedBy !== undefined || exit?.code === 0) return outcome;
        return { ...outcome, summary: `${outcome.summary}; ${note}` };
      },
      (error: unknown): BackgroundOutcome => ({ status: 'failed', summary: errorMessage(error) }),
    )
    .finally(() => {
      clearTimeout(timeoutTimer);
      group?.ended();
      launch?.ended();
    });
  return {
    pid: shell.pid,
    hooks: {
      cancel: (reason) =>
        stop(reason === undefined ? { kind: 'cancel' } : { kind: 'cancel', reason }),
      done,
      readOutput: () => {
        const text = unread.toString();
        unread = new BoundedOutput(settings.outputLimit);
        return text;
      },
    },
  };
}

function outcomeOf(
  stoppedBy: StopCause | undefined,
  exit: ShellExit | undefined,
  timeoutMs: number,
): BackgroundOutcome {
  if (stoppedBy?.kind === 'timeout') {
    return { status: 'failed', summary: `killed after ${timeoutMs} ms (timeout)` };
  }
  if (stoppedBy?.kind === 'cancel') {
    return {
      status: 'killed',
      summary: stoppedBy.reason ? `killed: ${stoppedBy.reason}` : 'killed',
    };
  }
  if (exit === undefined || exit.code === null) {
    return { status: 'failed', summary: `killed by signal ${exit?.signal ?? 'unknown'}` };
  }
  return { status: exit.code === 0 ? 'completed' : 'failed', summary: `exit code ${exit.code}` };
}
