/**
 * The worker-thread workflow engine: `WorkerWorkflowService` checks a request on the caller's
 * stack (meta shape, body pre-parse, limits, args) and throws a `WorkflowError` for one that
 * cannot begin; otherwise it starts one worker thread for the run and hands back its handle.
 * It never evaluates script text on the host; children start only through the subagent registry.
 */
import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { errorMessage } from '../base/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../base/json-text.js';
import type { Context } from '../core/context.js';
import type { PriceSource } from '../llm/prices.js';
import { agentTypesKey } from '../project/agent-types-contract.js';
import type { SubagentRegistry } from '../subagent/registry.js';
import type { AgentCallCheckOptions } from './agent-call-check.js';
import { workflowChildInstructions } from './authoring-guide.js';
import {
  type WorkflowEngineKind,
  WorkflowError,
  type WorkflowLimits,
  type WorkflowRun,
  type WorkflowService,
  type WorkflowStartRequest,
} from './contract.js';
import { HostRun } from './host-run.js';
import { KeptRun } from './kept-run.js';
import { resolveLimits } from './limits.js';
import { validateMeta } from './meta.js';
import type { WorkerSessionData } from './protocol.js';
import { RunBudget } from './run-budget.js';
import type { JournalDisk } from './run-journal.js';
import { checkRunId, readRunRecord } from './run-store.js';
import { checkScript } from './script-check.js';
import { type ScriptModels, workflowTargetRefusal, workspacePlace } from './script-reach.js';
import { DEFAULT_WORKFLOW_ENGINE, spawnWorkflowWorker } from './worker-spawn.js';
import { readWorkflowFile } from './workflow-file.js';

export interface WorkerWorkflowServiceOptions {
  /** Where the `workflow/*` events are emitted (the runtime's root scope). */
  context: Context;
  /** Children start here, and only here. */
  registry: SubagentRegistry;
  /** The subagent provider children start with; default `spawn`. */
  provider?: string;
  /** Defaults for every run; a request's own limits override them field by field. */
  limits?: Partial<WorkflowLimits>;
  /** A child's extra system prompt text; default `workflowChildInstructions`. Must not throw. */
  childInstructions?: (schema: boolean) => string;
  /** Where scripts run; default chosen in `host.ts` (see `src/workflow/README.md`). */
  engine?: WorkflowEngineKind;
  /** `$LOOM_HOME`: runs are kept under its `runs/`. Absent: no run folder and no journal. */
  home?: string;
  /** The project folder: saved workflows and relative paths are found from here. */
  cwd?: string;
  /**
   * A saved workflow's name or a file (relative to `relativeTo`, else `cwd`) to an absolute
   * path. Throws a `WorkflowError` naming the target when nothing matches.
   */
  resolveWorkflow?(target: string, relativeTo: string | undefined): string;
  /** Prices by model spec (config `prices`), for each agent's `costUsd`; default none. */
  prices?: PriceSource;
  /** The config's route names: a script may name them as agents' models; default none. */
  modelRoutes?: readonly string[];
  /** The model a run's agents get when its request names none; a script may name it too. */
  defaultModel?: string;
  /** For tests: how journal lines are written and made durable; default the file system. */
  journalDisk?: JournalDisk;
  /**
   * Every tool a child could be given, so an agent type's tool list hides the rest; default the
   * runtime's tool catalog when the context has the runtime.
   */
  toolNames?: () => readonly string[];
}

function checkArgs(args: unknown): Record<string, unknown> {
  if (args === undefined) return {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new WorkflowError('INVALID_ARGUMENT', 'workflow args must be a JSON object');
  }
  if (nestedDeeperThan(args, MAX_JSON_DEPTH)) {
    throw new WorkflowError(
      'INVALID_ARGUMENT',
      `workflow args are nested more than ${MAX_JSON_DEPTH} levels deep`,
    );
  }
  return args as Record<string, unknown>;
}

/** A target that names a file rather than a saved workflow: it has a folder or ends in `.js`. */
function looksLikePath(target: string): boolean {
  return /[\\/]/.test(target) || /\.[cm]?js$/i.test(target);
}

/**
 * The default `resolveWorkflow`: files only, relative to `relativeTo`, else `cwd`, and only
 * inside `cwd` (symlinks resolved; one outside is refused unread); a saved workflow's name is
 * refused, since this service knows no saved workflows.
 */
export function resolveWorkflowPath(cwd: string) {
  return (target: string, relativeTo: string | undefined): string => {
    if (!looksLikePath(target)) {
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        `no saved workflow named ${JSON.stringify(target.slice(0, 200))}: saved workflows are not available here; name a .js file by its path (relative to the script's folder)`,
      );
    }
    const path = workspacePlace(resolve(relativeTo ?? cwd, target), cwd);
    if (path === undefined) throw workflowTargetRefusal(cwd);
    return path;
  };
}

export class WorkerWorkflowService implements WorkflowService {
  private readonly context: Context;
  private readonly registry: SubagentRegistry;
  private readonly provider: string;
  private readonly limits: WorkflowLimits;
  private readonly childInstructions: (schema: boolean) => string;
  private readonly cwd: string;
  private readonly resolveWorkflow: (target: string, relativeTo: string | undefined) => string;
  private readonly prices: PriceSource;
  private readonly running = new Set<HostRun>();
  private readonly home: string | undefined;
  private readonly journalDisk: JournalDisk | undefined;
  private readonly engine: WorkflowEngineKind;
  private readonly modelRoutes: readonly string[];
  private readonly defaultModel: string | undefined;
  private readonly toolNames: (() => readonly string[]) | undefined;

  /** Throws `WorkflowError('INVALID_ARGUMENT')` for a bad limit. */
  constructor(options: WorkerWorkflowServiceOptions) {
    this.context = options.context;
    this.registry = options.registry;
    this.provider = options.provider ?? 'spawn';
    this.limits = resolveLimits(options.limits);
    this.childInstructions = options.childInstructions ?? workflowChildInstructions;
    this.cwd = options.cwd ?? process.cwd();
    this.resolveWorkflow = options.resolveWorkflow ?? resolveWorkflowPath(this.cwd);
    this.prices = options.prices ?? {};
    this.home = options.home;
    this.journalDisk = options.journalDisk;
    this.engine = options.engine ?? DEFAULT_WORKFLOW_ENGINE;
    this.modelRoutes = options.modelRoutes ?? [];
    this.defaultModel = options.defaultModel;
    this.toolNames = options.toolNames;
  }

  /** The request's provider, else the service's; one the registry lacks cannot begin. */
  private providerOf(request: WorkflowStartRequest): string {
    const provider = request.provider ?? this.provider;
    if (!this.registry.names().includes(provider)) {
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        `no subagent provider named ${provider} (registered: ${this.registry.names().join(', ')})`,
      );
    }
    return provider;
  }

  /** Runs whose worker thread has not exited yet. */
  get liveWorkers(): number {
    return this.running.size;
  }

  start(request: WorkflowStartRequest): WorkflowRun {
    const meta = validateMeta(request.meta);
    this.checkBody(request);
    const limits = resolveLimits(request.limits, this.limits);
    const provider = this.providerOf(request);
    const runId = this.runIdOf(request);
    // One ceiling per root run: the request's, else (on resume) the run's, else the meta's.
    const budget = new RunBudget(
      request.budgetTokens ?? this.keptBudgetTokens(request) ?? meta.budgetTokens ?? null,
    );
    const args = checkArgs(request.args);
    const data: WorkerSessionData = {
      script: request.script,
      args,
      limits,
      meta,
      budgetTotal: budget.total,
    };
    const worker = this.spawn(data);
    // The folder is made while the worker boots; the script gets `go` only after it is durable.
    let kept: KeptRun | undefined;
    try {
      kept = this.keep({
        runId,
        request,
        meta,
        args,
        limits,
        provider,
        budgetTokens: budget.total,
      });
    } catch (error) {
      worker.terminate().catch(() => {});
      throw error;
    }
    const scriptFolder =
      request.scriptPath === undefined ? undefined : dirname(resolve(this.cwd, request.scriptPath));
    const run: HostRun = new HostRun({
      runId,
      context: this.context,
      registry: this.registry,
      provider,
      meta,
      limits,
      request,
      childInstructions: this.childInstructions,
      budget,
      prices: this.prices,
      scriptModels: this.scriptModels(request),
      worker,
      onWorkerExit: () => this.running.delete(run),
      loadWorkflow: (target) =>
        readWorkflowFile(this.resolveWorkflow(target, scriptFolder), this.callCheck()),
      workspace: this.cwd,
      ...(this.toolNames ? { toolNames: this.toolNames } : {}),
      ...(request.scriptPath !== undefined
        ? { scriptFile: resolve(this.cwd, request.scriptPath) }
        : {}),
      ...(kept ? { journal: kept.journal } : {}),
    });
    this.running.add(run);
    if (!kept) return run;
    return kept.wrap(run);
  }

  /** What the run's script may name as models: the routes, and the run's own model. */
  private scriptModels(request: WorkflowStartRequest): ScriptModels {
    const runModel = request.model ?? this.defaultModel;
    return { routes: this.modelRoutes, ...(runModel !== undefined ? { runModel } : {}) };
  }

  /** How a script's literally written `agent()` options are checked: against the agent types there are. */
  private callCheck(): AgentCallCheckOptions {
    const agentTypes = this.context.find(agentTypesKey);
    return agentTypes ? { agentTypes } : {};
  }

  /**
   * The body's pre-parse and the check of its literal `agent()` calls (and, when one asks for a
   * worktree, that the workspace can give one); a body from a file names the file in its error.
   */
  private checkBody(request: WorkflowStartRequest): void {
    try {
      checkScript(request.script, { ...this.callCheck(), workspace: this.cwd });
    } catch (error) {
      if (request.scriptPath === undefined || !(error instanceof WorkflowError)) throw error;
      const path = resolve(this.cwd, request.scriptPath);
      throw new WorkflowError(error.code, `${path}: ${error.message}`, { cause: error });
    }
  }

  private runIdOf(request: WorkflowStartRequest): string {
    if (request.resumeRunId === undefined) return `workflow-${randomUUID()}`;
    if (this.home === undefined) {
      throw new WorkflowError(
        'INVALID_ARGUMENT',
        'this workflow service keeps no runs (no LOOM_HOME), so it cannot resume one',
      );
    }
    return checkRunId(request.resumeRunId);
  }

  /** A resumed run's token ceiling, as its folder keeps it (null: none); undefined otherwise. */
  private keptBudgetTokens(request: WorkflowStartRequest): number | null | undefined {
    if (request.resumeRunId === undefined || this.home === undefined) return undefined;
    return readRunRecord(this.home, request.resumeRunId).budgetTokens;
  }

  /** The run's folder and journal, when this service keeps runs. */
  private keep(run: {
    runId: string;
    request: WorkflowStartRequest;
    meta: WorkerSessionData['meta'];
    args: Record<string, unknown>;
    limits: WorkflowLimits;
    provider: string;
    budgetTokens: number | null;
  }): KeptRun | undefined {
    if (this.home === undefined) return undefined;
    return new KeptRun({
      ...run,
      home: this.home,
      context: this.context,
      ...(this.journalDisk ? { disk: this.journalDisk } : {}),
    });
  }

  private spawn(data: WorkerSessionData): Worker {
    try {
      return spawnWorkflowWorker(data, this.engine);
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name === 'DataCloneError') {
        throw new WorkflowError(
          'INVALID_ARGUMENT',
          `workflow args cannot be copied to the script: ${errorMessage(error)}`,
          { cause: error },
        );
      }
      throw error;
    }
  }
}
