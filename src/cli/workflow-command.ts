/**
 * `loom workflow run|check NAME|FILE` (SPEC §3): an existing FILE, else a saved NAME; meta from
 * `--meta` or the file's Claude Code header; the run starts through the workflow seam outside any
 * chat. Exit 0 completed with every agent completed, 3 completed with failed agents (listed on
 * stderr with the run id), 1 error, 2 could not start (the run's model without its key included),
 * 130/143/129 cancelled by SIGINT/SIGTERM/SIGHUP. stdout carries only the result (`--json`: the
 * result object; else the value as JSON).
 */

import { UserError } from '../base/errors.js';
import { loadConfig } from '../config/load-config.js';
import type { LoomConfig } from '../config/schema.js';
import { loomHome } from '../core/home.js';
import type { TokenCount } from '../llm/prices.js';
import { type AgentTypes, agentTypesKey } from '../project/agent-types-contract.js';
import type { WorkflowLimits, WorkflowResult, WorkflowRun } from '../workflow/contract.js';
import { followWorkflowRun } from '../workflow/run-events.js';
import { failedAgentsOf } from '../workflow/run-outcome.js';
import { checkScript } from '../workflow/script-check.js';
import { prewarmWorkflowWorker } from '../workflow/worker-spawn.js';
import { buildRuntime, type LoomSetup } from './build-runtime.js';
import { interruptLiveSessions } from './interrupt-sessions.js';
import { writeStartError } from './start-error.js';
import { describeStopSignal, handleStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';
import { type EventsFile, openEventsFile } from './workflow-events-file.js';
import {
  describeStartError,
  flagLimits,
  parseArgsOption,
  parseBudgetTokens,
  type WorkflowCheckOptions,
  type WorkflowRunOptions,
} from './workflow-options.js';
import { createProgressView } from './workflow-progress.js';
import { type PreparedScript, prepareScript } from './workflow-script.js';

export const EXIT_COMPLETED = 0;
export const EXIT_ERROR = 1;
export const EXIT_NOT_STARTED = 2;
export const EXIT_FAILED_AGENTS = 3;
export const EXIT_CANCELLED = 130;

/** `{input, output}`, and `cachedInput` and `cacheWrite` when the provider reported them. */
function tokensJson(tokens: TokenCount): TokenCount {
  return {
    input: tokens.input,
    output: tokens.output,
    ...(tokens.cachedInput ? { cachedInput: tokens.cachedInput } : {}),
    ...(tokens.cacheWrite ? { cacheWrite: tokens.cacheWrite } : {}),
  };
}

/**
 * The `--json` result of SPEC §3-§4, keys in its order; `error` and `code` only when not
 * completed, `costUsd` only when every agent's model has a price.
 */
export function jsonResult(result: WorkflowResult): Record<string, unknown> {
  const completed = result.stopReason === 'completed';
  const error =
    result.error ??
    (result.stopReason === 'cancelled'
      ? { code: 'CANCELLED', message: 'the workflow was cancelled' }
      : { code: 'SCRIPT_ERROR', message: 'the workflow stopped with an error' });
  return {
    runId: result.runId,
    name: result.name,
    stopReason: result.stopReason,
    value: completed ? (result.value ?? null) : null,
    ...(completed ? {} : { error: error.message, code: error.code }),
    agentsStarted: result.agentsStarted,
    failures: result.failures.map(({ seq, label, outcome, reason }) => ({
      seq,
      label,
      outcome,
      reason,
    })),
    tokens: tokensJson(result.usage),
    ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
    agents: result.agents.map((agent) => ({
      seq: agent.seq,
      label: agent.label,
      outcome: agent.outcome,
      tokens: tokensJson(agent.tokens),
      ...(agent.costUsd !== undefined ? { costUsd: agent.costUsd } : {}),
      ...(agent.workflow !== undefined ? { workflow: agent.workflow } : {}),
      ...(agent.journaled ? { journaled: true } : {}),
      ...(agent.branch !== undefined ? { branch: agent.branch } : {}),
    })),
  };
}

export function exitCodeOf(result: WorkflowResult, interrupted: boolean): number {
  if (result.stopReason === 'completed') {
    return failedAgentsOf(result) > 0 ? EXIT_FAILED_AGENTS : EXIT_COMPLETED;
  }
  if (result.stopReason === 'cancelled' || interrupted) return EXIT_CANCELLED;
  return EXIT_ERROR;
}

/** `--report FILE`: checked before the run, written (from the kept run folder) once it ends. */
interface ReportAfterRun {
  /** Returns a line for stderr when the report could not be written. */
  write(runId: string): string | undefined;
}

/** Loads the report writer only when asked for, before the run: the forced exit path is synchronous. */
async function prepareReport(path: string): Promise<ReportAfterRun> {
  const { checkReportPath, writeReportOfRun } = await import('./workflow-report-command.js');
  const absolute = checkReportPath(path);
  return { write: (runId) => writeReportOfRun(runId, absolute) };
}

function reportStartError(error: unknown, json?: boolean): number {
  writeStartError(error, describeStartError(error), json);
  return EXIT_NOT_STARTED;
}

/**
 * Whether the run's children use the run's model, so its key must be there before the run starts:
 * not when they run in an ACP agent other than Loom, which chooses its own model.
 */
function childrenUseRunModel(
  config: LoomConfig | undefined,
  provider: string | undefined,
): boolean {
  const name = provider ?? config?.workflow?.provider ?? 'spawn';
  const declared = config?.subagents?.providers?.[name];
  return !(declared?.type === 'acp' && declared.command !== undefined);
}

/** `run` and `check` take the workflow as an optional argument, so it is checked here. */
function requireTarget(target: string | undefined): string {
  if (target === undefined || target.trim() === '') {
    throw new UserError(
      'INVALID_ARGUMENT',
      'a workflow NAME or FILE is needed (loom workflow list shows the saved ones)',
    );
  }
  return target;
}

export function workflowCheckCommand(
  target: string | undefined,
  options: WorkflowCheckOptions,
): number {
  try {
    const { meta, body } = prepareScript(requireTarget(target), options.meta);
    const workspace = process.cwd();
    const calls = checkScript(body, { workspace });
    // Agent types are read from the project only when a call names one.
    const agentTypes = calls.agentType ? agentTypesHere(workspace) : undefined;
    if (agentTypes) checkScript(body, { workspace, agentTypes });
    process.stdout.write(`ok: ${meta.name}\n`);
    return EXIT_COMPLETED;
  } catch (error) {
    return reportStartError(error);
  }
}

/**
 * The agent types a run here would know, from a runtime built as `run` builds it; undefined when
 * none can be built (no model is configured, so a run could not start either) or it has none.
 */
function agentTypesHere(workspace: string): AgentTypes | undefined {
  let setup: LoomSetup;
  try {
    setup = buildRuntime({ cwd: workspace, home: loomHome() });
  } catch {
    return undefined;
  }
  const agentTypes = setup.runtime.root.find(agentTypesKey);
  setup.workflow.dispose();
  setup.subagents.dispose();
  void setup.mcp.dispose();
  return agentTypes;
}

export async function workflowRunCommand(
  target: string | undefined,
  options: WorkflowRunOptions,
): Promise<number> {
  let setup: LoomSetup;
  /** A resumed run that came from no file (the workflow tool's) has no path. */
  let prepared: Omit<PreparedScript, 'path'> & { path?: string };
  let args: Record<string, unknown> | undefined;
  let limits: Partial<WorkflowLimits>;
  let budgetTokens: number | undefined;
  let events: EventsFile | undefined;
  let report: ReportAfterRun | undefined;
  let { model, provider } = options;
  // The script's thread, on the configured engine, starts while the runtime is built on this one.
  // A config that does not read is reported by buildRuntime, which reads it again.
  let config: LoomConfig | undefined;
  try {
    config = loadConfig(loomHome(), process.cwd());
  } catch {}
  prewarmWorkflowWorker(config?.workflow?.engine, config?.workflow?.maxScriptMemoryMb);
  try {
    if (options.resume !== undefined) {
      const { prepareResume } = await import('./workflow-resume.js');
      const resumed = prepareResume(loomHome(), options.resume, target, options);
      ({ args, limits, model, provider } = resumed);
      prepared = resumed;
    } else {
      prepared = prepareScript(requireTarget(target), options.meta);
      args = options.args === undefined ? undefined : parseArgsOption(options.args);
      limits = flagLimits(options);
    }
    budgetTokens =
      options.budgetTokens === undefined ? undefined : parseBudgetTokens(options.budgetTokens);
    setup = buildRuntime({
      cwd: process.cwd(),
      home: loomHome(),
      ...(model !== undefined ? { model } : {}),
      ...(config !== undefined ? { config } : {}),
      requireModelKey: childrenUseRunModel(config, provider),
    });
    events = options.events ? openEventsFile(options.events) : undefined;
    if (options.report !== undefined) report = await prepareReport(options.report);
  } catch (error) {
    return reportStartError(error, options.json);
  }

  const view = createProgressView({ output: process.stderr });
  const follower = followWorkflowRun(setup.runtime.root, (record) => {
    events?.write(record);
    view.record(record);
  });
  // The agents get the MCP servers' tools; a failed server is reported on stderr.
  await setup.mcp.ready();
  let run: WorkflowRun;
  try {
    run = setup.workflow.service.start({
      meta: prepared.meta,
      script: prepared.body,
      ...(prepared.path !== undefined ? { scriptPath: prepared.path } : {}),
      ...(args ? { args } : {}),
      parent: { sessionId: null, delegationDepth: 0 },
      ...(model !== undefined ? { model } : {}),
      ...(provider !== undefined ? { provider } : {}),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
      ...(budgetTokens !== undefined ? { budgetTokens } : {}),
      ...(options.resume !== undefined ? { resumeRunId: options.resume } : {}),
    });
  } catch (error) {
    follower.dispose();
    view.abandon();
    events?.close();
    setup.workflow.dispose();
    setup.subagents.dispose();
    return reportStartError(error, options.json);
  }
  follower.started(run.id);

  const printResult = (result: WorkflowResult) => {
    if (options.json) process.stdout.write(`${JSON.stringify(jsonResult(result))}\n`);
    else if (result.stopReason === 'completed') {
      process.stdout.write(`${JSON.stringify(result.value ?? null, null, 2)}\n`);
    }
  };
  const closeEvents = () => {
    const eventsFailure = events?.close();
    if (eventsFailure) process.stderr.write(`loom: ${eventsFailure}\n`);
  };
  const writeReport = () => {
    const reportFailure = report?.write(run.id);
    if (reportFailure) process.stderr.write(`loom: ${reportFailure}\n`);
  };
  const signals = handleStopSignals({
    graceful(signal) {
      view.notice(`cancelling… (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to exit at once)`);
      run.cancel(describeStopSignal(signal));
    },
    forced(cause) {
      const result = run.endNow(
        cause === 'output-closed' ? 'standard output was closed' : describeStopSignal(cause),
      );
      follower.dispose();
      view.finish(result);
      closeEvents();
      writeReport();
      interruptLiveSessions(setup, 'the workflow run was stopped at once');
      printResult(result);
    },
  });
  const result = await run.result;
  signals.finish();
  run.dispose();
  follower.dispose();
  view.finish(result);
  closeEvents();
  writeReport();
  printResult(result);
  setup.workflow.dispose();
  setup.subagents.dispose();
  await setup.mcp.dispose();
  if (result.stopReason !== 'completed' && signals.received)
    return SIGNAL_EXIT_CODES[signals.received];
  return exitCodeOf(result, signals.received !== undefined);
}
