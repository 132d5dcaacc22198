/**
 * `loom run [prompt]`: one headless turn. Streams the answer (or, with --json, every session
 * event as NDJSON) and exits 0 when the turn completed, 1 on error, 130/143/129 when stopped by
 * SIGINT/SIGTERM/SIGHUP (a second signal closes the turn as `interrupted` and exits at once). An
 * event reaches stdout only after it is on disk, so what a watcher saw survives a crash. The
 * run lasts while the root's children and its subagent and workflow jobs work (their notices
 * wake it); background commands do not keep it alive: they are killed, and logged, at the end.
 * With `--goal` (or once the model arms a goal) it runs the goal's rounds until they settle and
 * exits by the settlement; a stop signal pauses the goal first, so it is never lost. A prompt
 * `/NAME args` that names a custom command runs that command's turn; any other prompt is sent as
 * written.
 */

import { resolve } from 'node:path';
import { errorMessage, UserError } from '../base/errors.js';
import { unfinishedRestoreNotice } from '../checkpoint/unfinished-restore.js';
import {
  isToolPresentation,
  TOOL_PRESENTATIONS,
  type ToolPresentation,
} from '../code-mode/contract.js';
import { unknownModelNotes } from '../context/unknown-model-notes.js';
import { agentTurnEnd, type TurnOutcome } from '../core/agent-hooks.js';
import { blobStoreKey } from '../core/blob-store.js';
import type { Context } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { loomHome } from '../core/home.js';
import { keepImage, readImageFile } from '../core/image-intake.js';
import type { SessionEvent } from '../core/session-events.js';
import { GOAL_SOURCE, type Goal, type GoalSettlement } from '../goal/contract.js';
import { type GoalService, MAX_ROUND_CAP } from '../goal/goal-service.js';
import { goalOf } from '../goal/install.js';
import { missedSchedulesNote, pendingSchedulesNote } from '../interaction/schedule-install.js';
import { type JobService, jobSettled } from '../jobs/contract.js';
import type { ImageReference } from '../llm/contract.js';
import { expandMcpPrompt, isMcpPromptText } from '../mcp/prompt-commands.js';
import { mentionsServerResource, withMentionedResources } from '../mcp/resource-mentions.js';
import { commandCatalogKey } from '../project/command-contract.js';
import {
  type CommandInvocation,
  checkInvocation,
  parseInvocation,
  runCommandTurn,
} from '../project/command-turn.js';
import type { ChildRegistry } from '../subagent/children.js';
import { buildRuntime, type LoomSetup } from './build-runtime.js';
import {
  goalProgressWriter,
  normalizeSettlement,
  settlementReport,
  withErrorCode,
} from './goal-output.js';
import { interruptLiveSessions } from './interrupt-sessions.js';
import { type PlanRunOptions, preparePlanRun } from './plan-run.js';
import { plainRenderer } from './render-plain.js';
import { runAnswerer } from './run-answerer.js';
import { withRunStatusLine } from './run-status-line.js';
import { runWorkspace } from './session-workspace.js';
import { writeStartError } from './start-error.js';
import { describeStopSignal, handleStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';

export interface RunOptions extends PlanRunOptions {
  model?: string;
  session?: string;
  json?: boolean;
  cwd?: string;
  maxSteps?: string;
  /** Create this goal, arm it and run its rounds here. */
  goal?: string;
  maxRounds?: string;
  /** `--answers FILE`: answers to the agent's questions when nobody is at a terminal. */
  answers?: string;
  /** `--tools-mode native|code|both`: how every agent of the run is shown its tools. */
  toolsMode?: string;
  /** `--image FILE`, repeatable: images attached to the prompt. */
  image?: string[];
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

/** `--max-rounds N`: a goal's total round cap, a whole number of at least 1. */
export function parseMaxRounds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rounds = Number(value);
  if (value.trim() === '' || !Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUND_CAP) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--max-rounds must be a whole number from 1 to ${MAX_ROUND_CAP} (got ${value})`,
    );
  }
  return rounds;
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

function parseToolsMode(value: string | undefined): ToolPresentation | undefined {
  if (value === undefined || isToolPresentation(value)) return value;
  throw new UserError(
    'INVALID_ARGUMENT',
    `--tools-mode must be one of ${TOOL_PRESENTATIONS.join(', ')} (got ${value})`,
  );
}

export function exitCodeOf(outcome: TurnOutcome): number {
  if (outcome.reason === 'completed') return 0;
  if (outcome.reason === 'aborted') return 130;
  return 1;
}

/**
 * Usage mistakes and a missing model key found before the run starts exit 2 (could not start),
 * as `loom workflow run` does; other start failures exit 1.
 */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'INVALID_ARGUMENT',
  'MODEL_SPEC',
  'MISSING_CREDENTIAL',
]);

interface StartedRun {
  setup: LoomSetup;
  handle: AgentHandle;
  run: SessionRunOptions;
}

export async function runCommand(
  argument: string | undefined,
  options: RunOptions,
): Promise<number> {
  let started: StartedRun;
  try {
    started = await startRun(argument, options);
  } catch (error) {
    writeStartError(error, errorMessage(error), options.json);
    return error instanceof UserError && USAGE_CODES.has(error.code) ? 2 : 1;
  }
  return runSession(started.setup, started.handle, started.run);
}

/** Everything before the first turn: flags, config, model, the session and the prompt. */
async function startRun(argument: string | undefined, options: RunOptions): Promise<StartedRun> {
  const objective = options.goal;
  if (options.maxRounds !== undefined && objective === undefined) {
    throw new UserError(
      'INVALID_ARGUMENT',
      '--max-rounds needs --goal (to raise the cap of an existing goal: loom goal resume --session ID --max-rounds N)',
    );
  }
  if (objective !== undefined && objective.trim() === '') {
    throw new UserError('INVALID_ARGUMENT', '--goal needs a non-empty objective');
  }
  const maxRounds = parseMaxRounds(options.maxRounds);
  const cwd = runWorkspace(options, loomHome());
  const unfinished = unfinishedRestoreNotice(loomHome(), cwd);
  if (unfinished) process.stderr.write(`loom: ${unfinished}\n`);
  const maxSteps = parseMaxSteps(options.maxSteps);
  const toolsMode = parseToolsMode(options.toolsMode);
  // Read (and checked) before anything runs: a bad path is a usage mistake naming the file.
  const imageFiles = (options.image ?? []).map((file) => ({
    file,
    bytes: readImageFile(resolve(file), `--image ${file}`),
  }));
  let answerer: ReturnType<typeof runAnswerer>;
  try {
    answerer = runAnswerer(options);
  } catch (error) {
    // A bad --answers file is a usage mistake (exit 2), reported before anything runs.
    if (!(error instanceof UserError)) throw error;
    throw new UserError('INVALID_ARGUMENT', error.message, { cause: error });
  }
  const setup = buildRuntime({
    answerer,
    cwd,
    home: loomHome(),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(maxSteps ? { maxSteps } : {}),
    ...(toolsMode ? { toolsMode } : {}),
    requireModelKey: true,
  });
  const { runtime } = setup;
  // A continued session is opened first, so a busy one fails before the prompt is read.
  const resumed = options.session ? runtime.resume(options.session) : undefined;
  // With --goal, a prompt is an optional first message; standard input is not read for one.
  const prompt =
    objective === undefined
      ? await readPrompt(argument)
      : argument !== undefined && argument.trim().length > 0
        ? argument
        : undefined;
  // A prompt `/NAME args` naming a custom command runs it (loom run has no built-in commands).
  const command =
    prompt === undefined
      ? undefined
      : parseInvocation(runtime.root.find(commandCatalogKey), prompt);
  if (command) checkInvocation(command, (spec) => setup.resolveModel(spec));
  if (imageFiles.length > 0 && (prompt === undefined || command)) {
    throw new UserError(
      'INVALID_ARGUMENT',
      prompt === undefined
        ? '--image attaches to a prompt: give one'
        : '--image cannot go with a custom command (/NAME); attach images to a plain prompt',
    );
  }
  const images: ImageReference[] = [];
  const blobs = runtime.root.find(blobStoreKey);
  for (const { file, bytes } of imageFiles) {
    if (!blobs) throw new Error('no blob store is set up to keep the images');
    images.push(await keepImage(blobs, bytes, `--image ${file}`));
  }
  const handle = resumed ?? runtime.start();
  const run: SessionRunOptions = {
    ...(prompt !== undefined ? { prompt } : {}),
    ...(images.length > 0 ? { images } : {}),
    ...(command ? { command } : {}),
    ...(options.json ? { json: true } : {}),
    ...(options.plan ? { plan: true } : {}),
    ...(options.approvePlan ? { approvePlan: true } : {}),
    ...(objective !== undefined
      ? {
          startGoal: (service: GoalService) =>
            service.create({
              objective,
              ...(maxRounds !== undefined ? { maxRounds } : {}),
              by: 'human',
            }),
        }
      : {}),
  };
  return { setup, handle, run };
}

export interface SessionRunOptions extends PlanRunOptions {
  /** The human message of the first turn. */
  prompt?: string;
  /** Images attached to `prompt`, already in the blob store. */
  images?: ImageReference[];
  /** The prompt calls this custom command: the first turn is its turn (body, model, tools). */
  command?: CommandInvocation;
  json?: boolean;
  /**
   * Readies the session's goal (create it, or resume it) before anything runs; the goal is then
   * armed and the run lasts until the round driver settles, exiting by its settlement.
   */
  startGoal?: (service: GoalService) => Goal | null;
}

/**
 * Runs `handle` (a root session this command opened) until it settles, then closes it: the first
 * human turn, the goal's rounds while the goal is armed (by `startGoal`, or by the model's
 * `create_goal` in that turn), and the children and jobs the root waits for. Returns the exit
 * code. The first stop signal pauses an armed goal (by the human) and cancels the running turn.
 */
export async function runSession(
  setup: LoomSetup,
  handle: AgentHandle,
  options: SessionRunOptions,
): Promise<number> {
  try {
    return await runOpenSession(setup, handle, options);
  } finally {
    // The MCP servers end with the session (their processes waited for, not left to exit).
    await setup.mcp.dispose();
  }
}

async function runOpenSession(
  setup: LoomSetup,
  handle: AgentHandle,
  options: SessionRunOptions,
): Promise<number> {
  const { runtime, subagents, jobs } = setup;
  process.stderr.write(missedSchedulesNote(handle));
  const sessionId = handle.log.header.sessionId;
  const goal = goalOf(handle);
  const output = options.json ? jsonPrinter(sessionId, () => handle.log.flush()) : undefined;
  const renderer = options.json
    ? undefined
    : withRunStatusLine(plainRenderer(process.stdout, process.stderr), process.stderr, {
        agents: () => subagents.services.children.runningUnder(sessionId),
      });
  const goalProgress = options.json ? undefined : goalProgressWriter(process.stderr);
  let roundsStarted = false;
  // The once-per-model note for a model the catalog does not know, at its first sized request.
  const modelNote = unknownModelNotes(setup.catalog, () => handle.agent.model);
  handle.log.onAppend((event) => {
    const note = modelNote(event);
    if (note) {
      renderer?.finish();
      process.stderr.write(`note: ${note}\n`);
    }
    if (event.type === 'user/message') {
      const data = event.data as SessionEvent<'user/message'>['data'];
      if (data.source === GOAL_SOURCE) roundsStarted = true;
    }
    if (output) output.push(event);
    else renderer?.render(event);
    goalProgress?.(event);
  });
  // The MCP servers start with the session; a failed one is logged here, so --json shows it.
  await setup.mcp.ready(handle);
  // `/mcp__SERVER__PROMPT args`: a server's prompt is the first message.
  let firstPrompt = options.prompt;
  if (!options.command && firstPrompt !== undefined && isMcpPromptText(firstPrompt)) {
    try {
      const expanded = await expandMcpPrompt(handle.context, firstPrompt);
      if (expanded) {
        handle.log.append('mcp/prompt-run', {
          server: expanded.server,
          prompt: expanded.prompt,
          arguments: expanded.arguments,
        });
        firstPrompt = expanded.text;
      }
    } catch (error) {
      output?.drain();
      handle.close();
      throw withErrorCode(error);
    }
  }
  // `@server:uri` attaches that MCP resource to the message.
  if (
    !options.command &&
    firstPrompt !== undefined &&
    mentionsServerResource(handle.context, firstPrompt)
  ) {
    firstPrompt = await withMentionedResources(handle.context, firstPrompt);
  }
  if (options.startGoal) {
    process.stderr.write(`session ${sessionId}\n`);
    try {
      if (!goal) throw new UserError('INVALID_ARGUMENT', 'goals are not installed in this runtime');
      options.startGoal(goal.service);
      goal.service.arm();
      goal.driver.request();
    } catch (error) {
      output?.drain();
      handle.close();
      throw withErrorCode(error);
    }
  }
  preparePlanRun(
    handle,
    options,
    renderer &&
      ((text) => {
        renderer.finish();
        process.stdout.write(text);
      }),
  );
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
      if (goal) pauseArmedGoal(goal.service, reason);
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
  const firstTurn = options.command
    ? runCommandTurn(handle, options.command, {
        resolveModel: (spec) => setup.resolveModel(spec),
        start: (text) => handle.agent.prompt(text),
        workspace: runtime.cwd,
        note: (line) => process.stderr.write(`note: ${line}\n`),
      })
    : firstPrompt !== undefined
      ? handle.agent.prompt(firstPrompt, options.images ? { images: options.images } : {})
      : undefined;
  let settlement: GoalSettlement | undefined;
  if (goal && options.startGoal) settlement = await goal.driver.whenSettled();
  const first = firstTurn ? await firstTurn : undefined;
  await whenRunSettled(handle, subagents.services.children, jobs.service, runtime.root);
  // The model armed a goal (create_goal, or resume on the human's word): its rounds run here.
  if (goal && !settlement && (goal.service.activation === 'armed' || roundsStarted)) {
    settlement = await goal.driver.whenSettled();
    await whenRunSettled(handle, subagents.services.children, jobs.service, runtime.root);
  }
  signals.finish();
  jobs.service.abandonAll('loom run is exiting');
  subagents.services.children.releaseUnder(sessionId);
  output?.drain();
  renderer?.finish();
  process.stderr.write(pendingSchedulesNote(handle));
  if (settlement) {
    const report = settlementReport(normalizeSettlement(settlement), sessionId);
    process.stderr.write(`${report.message}\n`);
    handle.close();
    if (signals.received && settlement.kind !== 'complete') {
      return SIGNAL_EXIT_CODES[signals.received];
    }
    return report.code;
  }
  const outcome = (signals.received ? first : (last ?? first)) ?? last;
  if (output && outcome?.reason === 'error') {
    process.stderr.write(`error: ${outcome.error.message}\n`);
  }
  handle.close();
  if (signals.received && outcome?.reason !== 'completed')
    return SIGNAL_EXIT_CODES[signals.received];
  return outcome ? exitCodeOf(outcome) : 1;
}

/** On a stop signal: an armed, active goal is paused by the human, so it is not lost. */
function pauseArmedGoal(service: GoalService, reason: string): void {
  try {
    if (service.problem || service.activation !== 'armed') return;
    const goal = service.goal;
    if (goal === null || goal.phase !== 'active') return;
    service.update(
      { goalId: goal.id, revision: goal.revision },
      { action: 'pause', reason },
      'human',
    );
  } catch (error) {
    process.stderr.write(`loom: could not pause the goal: ${errorMessage(error)}\n`);
  }
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
