/**
 * `loom run [prompt]`: one headless turn. Streams the answer (or, with --json, every session
 * event as NDJSON) and exits 0 when the turn completed, 1 on error, 130/143/129 when stopped by
 * SIGINT/SIGTERM/SIGHUP (a second signal closes the turn as `interrupted` and exits at once). An
 * event reaches stdout only after it is on disk, so what a watcher saw survives a crash. The
 * run lasts while the root's children and its subagent and workflow jobs work (their notices
 * wake it); background commands do not keep it alive: they are killed, and logged, at the end.
 */
import { agentTurnEnd, type TurnOutcome } from '../core/agent-hooks.js';
import type { Context } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { UserError } from '../core/errors.js';
import { loomHome } from '../core/home.js';
import type { SessionEvent } from '../core/session-events.js';
import { missedSchedulesNote, pendingSchedulesNote } from '../interaction/schedule-install.js';
import { type JobService, jobSettled } from '../jobs/contract.js';
import type { ChildRegistry } from '../subagent/children.js';
import { buildRuntime } from './build-runtime.js';
import { interruptLiveSessions } from './interrupt-sessions.js';
import { plainRenderer } from './render-plain.js';
import { runWorkspace } from './session-workspace.js';
import { describeStopSignal, handleStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';

export interface RunOptions {
  model?: string;
  session?: string;
  json?: boolean;
  cwd?: string;
  maxSteps?: string;
}

async function readPrompt(argument: string | undefined): Promise<string> {
  if (argument !== undefined && argument.trim().length > 0) return argument;
  if (process.stdin.isTTY)
    throw new UserError(
      'INVALID_ARGUMENT',
      'no prompt: pass it as an argument or on standard input',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text.length === 0)
    throw new UserError('INVALID_ARGUMENT', 'no prompt: standard input was empty');
  return text;
}

function parseMaxSteps(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const steps = Number(value);
  if (!Number.isInteger(steps) || steps < 1) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--max-steps must be a whole number of at least 1 (got ${value})`,
    );
  }
  return steps;
}

export function exitCodeOf(outcome: TurnOutcome): number {
  if (outcome.reason === 'completed') return 0;
  if (outcome.reason === 'aborted') return 130;
  return 1;
}

export async function runCommand(
  argument: string | undefined,
  options: RunOptions,
): Promise<number> {
  const cwd = runWorkspace(options, loomHome());
  const maxSteps = parseMaxSteps(options.maxSteps);
  const setup = buildRuntime({
    cwd,
    home: loomHome(),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(maxSteps ? { maxSteps } : {}),
  });
  const { runtime, subagents, jobs } = setup;
  // A continued session is opened first, so a busy one fails before the prompt is read.
  const resumed = options.session ? runtime.resume(options.session) : undefined;
  const prompt = await readPrompt(argument);
  const handle = resumed ?? runtime.start();
  process.stderr.write(missedSchedulesNote(handle));
  const sessionId = handle.log.header.sessionId;
  const output = options.json ? jsonPrinter(sessionId, () => handle.log.flush()) : undefined;
  const renderer = options.json ? undefined : plainRenderer(process.stdout, process.stderr);
  handle.log.onAppend((event) => (output ? output.push(event) : renderer?.render(event)));
  let last: TurnOutcome | undefined;
  handle.context.on(agentTurnEnd, ({ outcome }) => {
    last = outcome;
  });

  const signals = handleStopSignals({
    graceful(signal) {
      process.stderr.write(
        `stopping… (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to exit at once)\n`,
      );
      const reason = signal === 'SIGINT' ? 'interrupted by the user' : describeStopSignal(signal);
      subagents.services.children.cancelTree(sessionId, reason);
      jobs.service.abandonAll(reason);
    },
    forced(cause) {
      interruptLiveSessions(
        setup,
        cause === 'output-closed' ? 'standard output was closed' : describeStopSignal(cause),
      );
      output?.drain();
      renderer?.finish();
    },
  });
  const first = await handle.agent.prompt(prompt);
  await whenRunSettled(handle, subagents.services.children, jobs.service, runtime.root);
  signals.finish();
  jobs.service.abandonAll('loom run is exiting');
  subagents.services.children.releaseUnder(sessionId);
  output?.drain();
  renderer?.finish();
  process.stderr.write(pendingSchedulesNote(handle));
  const outcome = signals.received ? first : (last ?? first);
  if (output && outcome.reason === 'error') {
    process.stderr.write(`error: ${outcome.error.message}\n`);
  }
  handle.close();
  if (signals.received && outcome.reason !== 'completed')
    return SIGNAL_EXIT_CODES[signals.received];
  return exitCodeOf(outcome);
}

/** Job kinds whose end the run waits for: their notices carry answers the root asked for. */
const AWAITED_JOB_KINDS = new Set(['subagent', 'workflow']);

/**
 * Resolves once the root is idle, owns no running child, and no subagent or workflow job runs:
 * each settlement may wake the root again (its notice is a follow-up), so this loops.
 */
async function whenRunSettled(
  handle: AgentHandle,
  children: ChildRegistry,
  jobs: JobService,
  events: Context,
): Promise<void> {
  while (true) {
    let stopListening = () => {};
    const nextJobEnd = new Promise<void>((resolve) => {
      stopListening = events.on(jobSettled, () => resolve());
    });
    try {
      await children.whenSettled(handle);
      if (handle.agent.status !== 'idle') continue;
      if (!jobs.running().some((record) => AWAITED_JOB_KINDS.has(record.kind))) return;
      await nextJobEnd;
    } finally {
      stopListening();
    }
  }
}

/** Buffers NDJSON lines and writes them only after the log has flushed them to disk. */
function jsonPrinter(sessionId: string, flushLog: () => void) {
  let lines: string[] = [];
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    if (lines.length === 0) return;
    flushLog();
    process.stdout.write(lines.join(''));
    lines = [];
  };
  return {
    push(event: SessionEvent) {
      lines.push(
        `${JSON.stringify({ sessionId, type: event.type, seq: event.seq, time: event.time, data: event.data })}\n`,
      );
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
    },
    drain,
  };
}
