/**
 * One workflow run on the host: drives its worker over the wire protocol, hands `agent()` calls
 * to the run's children, reads nested `workflow()` targets for the worker, emits the run's events
 * and settles the result. The result never rejects and resolves only once the worker has
 * exited; cancel always frees the caller within the grace period, ending in `worker.terminate()`.
 * Every path ends with one `workflow/end`. The run-level limits end it here too: a script past
 * `maxScriptMemoryMb` (SCRIPT_MEMORY, its thread stopped at once) and `maxRunMs` from the
 * worker's `started` (RUN_TIMEOUT).
 */
import type { Worker } from 'node:worker_threads';
import { assertNever, errorMessage } from '../base/errors.js';
import type { Disposer } from '../core/context.js';
import {
  type LoadedWorkflow,
  WorkflowError,
  type WorkflowMeta,
  type WorkflowResult,
  type WorkflowRun,
  type WorkflowStopReason,
  workflowEnd,
  workflowLog,
  workflowPhase,
  workflowStart,
} from './contract.js';
import { watchWorkerHeap } from './heap-watch.js';
import {
  type AgentReply,
  type DoneOutcome,
  type HostEnvelope,
  HostMessage,
  type HostPayloads,
  type WorkerEnvelope,
  WorkerMessage,
  type WorkflowLoadReply,
} from './protocol.js';
import { nestedScriptFilename, placeScriptFrames, SCRIPT_FILENAME } from './render-thrown.js';
import { RunChildren, type RunSetup } from './run-children.js';
import { readWorkerMessage } from './wire-check.js';
import { WireOutbox } from './wire-outbox.js';

export interface HostRunSetup extends RunSetup {
  worker: Worker;
  /** Called once, when the worker thread has exited. Must not throw. */
  onWorkerExit(): void;
  /**
   * A nested `workflow()` call's target (a saved name or a path) read into a workflow; throws a
   * `WorkflowError` naming what is wrong. Absent: the run cannot nest workflows.
   */
  loadWorkflow?(target: string): LoadedWorkflow;
  /** The top script's file (absolute), when it came from one: its error frames name it. */
  scriptFile?: string;
}

type RunOutcome =
  | { stopReason: 'completed'; value: unknown }
  | { stopReason: Exclude<WorkflowStopReason, 'completed'>; error: WorkflowResult['error'] };

/** booting: `go` not sent yet; draining: the outcome is known, children are still ending. */
type Stage = 'booting' | 'running' | 'draining' | 'ended';

export class HostRun implements WorkflowRun {
  readonly id: string;
  readonly result: Promise<WorkflowResult>;
  private readonly setup: HostRunSetup;
  private readonly worker: Worker;
  /** What is sent to the worker in one turn of the loop reaches it as one post. */
  private readonly outbox: WireOutbox<HostEnvelope>;
  private readonly children: RunChildren;
  private stage: Stage = 'booting';
  private cancelReason: string | undefined;
  private outcome: RunOutcome | undefined;
  private final: WorkflowResult | undefined;
  /** The title of the latest `phase()` call, per nested run name (undefined: the top level). */
  private readonly currentPhases = new Map<string | undefined, string>();
  /** The meta of each nested workflow loaded so far, by its name. */
  private readonly nestedMetas = new Map<string, WorkflowMeta>();
  /** The files of the scripts this run compiled, by the name each was compiled under. */
  private readonly scriptFiles: Array<{ compiledAs: string; path: string }> = [];
  private lastCall = 0;
  private lastLoad = 0;
  private graceTimer: NodeJS.Timeout | undefined;
  /**
   * `maxRunMs`, from the worker's `started`: the script's own time, as Code Mode's limit counts
   * from its program's start. Booting the thread and loading its engine (QuickJS, for the
   * isolated engine: long on a busy machine) do not count, so a limit means the same under load.
   */
  private runTimer: NodeJS.Timeout | undefined;
  private scriptStarted = false;
  private readonly stopHeapWatch: Disposer;
  /** The spent tokens the worker was last told of, and that message while it is still queued. */
  private budgetSent = 0;
  private budgetNote: { payload: HostPayloads[HostMessage.Budget]; post: number } | undefined;
  private readonly stopBudget: Disposer;
  private workerExited = false;
  private disposed = false;
  private resolveResult: (result: WorkflowResult) => void = () => {};

  constructor(setup: HostRunSetup) {
    this.setup = setup;
    this.id = setup.runId;
    if (setup.scriptFile !== undefined) {
      this.scriptFiles.push({ compiledAs: SCRIPT_FILENAME, path: setup.scriptFile });
    }
    this.worker = setup.worker;
    this.outbox = new WireOutbox(this.worker, () => {
      // Only a dead worker refuses a message; its exit settles the run.
    });
    this.children = new RunChildren({
      ...setup,
      reply: (call, reply) => {
        this.post(HostMessage.AgentResult, { call, reply });
        // BUDGET_EXHAUSTED: the budget ends the run itself, with its reason for the children.
        if (
          reply.kind === 'fatal' &&
          reply.code !== 'CANCELLED' &&
          reply.code !== 'BUDGET_EXHAUSTED'
        )
          this.startFailed(reply);
      },
      onChildEnded: () => {
        if (this.stage === 'draining' && this.children.active === 0) this.complete();
      },
      nestedMeta: (name) => this.nestedMetas.get(name),
    });
    this.result = new Promise((resolve) => {
      this.resolveResult = resolve;
    });
    this.stopBudget = setup.budget.onExhausted(this.onBudgetExhausted);
    this.stopHeapWatch = watchWorkerHeap(
      this.worker,
      setup.limits.maxScriptMemoryMb,
      this.onScriptMemory,
    );
    this.worker.on('message', this.onMessage);
    this.worker.on('error', this.onError);
    this.worker.on('messageerror', this.onError);
    this.worker.on('exit', this.onExit);
    setup.request.signal?.addEventListener('abort', this.onAbort);
    setup.context.emit(workflowStart, {
      runId: this.id,
      time: Date.now(),
      name: setup.meta.name,
      description: setup.meta.description,
      phases: (setup.meta.phases ?? []).map((phase) => phase.title),
      slots: setup.limits.maxConcurrentAgents,
    });
    if (setup.request.signal?.aborted) this.onAbort();
  }

  cancel(reason = 'cancelled by the caller'): void {
    if (this.outcome || this.cancelReason !== undefined) return;
    this.cancelReason = reason;
    if (this.stage === 'booting') {
      this.finish(this.cancelledOutcome());
      return;
    }
    this.children.cancelAll(reason);
    this.post(HostMessage.Cancel, { reason });
    this.startGrace();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cancel('the workflow run was disposed');
    if (!this.workerExited) this.terminate();
  }

  endNow(reason: string): WorkflowResult {
    if (!this.final) {
      this.cancelReason ??= reason;
      this.outcome ??= this.cancelledOutcome();
      this.complete();
    }
    if (!this.final) throw new Error('workflow run ended without a final result');
    return this.final;
  }

  private readonly onAbort = (): void => {
    this.cancel('the caller aborted the workflow');
  };

  /**
   * The spent tokens reached the total: the run ends BUDGET_EXHAUSTED whatever the script
   * catches, running children are cancelled with the budget's reason, and the worker is told
   * (its pending and later hook calls fail with a fatal BUDGET_EXHAUSTED).
   */
  private readonly onBudgetExhausted = (): void => {
    if (this.outcome || this.stage === 'ended') return;
    const { budget } = this.setup;
    this.budgetSent = budget.spent;
    this.post(HostMessage.Budget, { spent: budget.spent, exhausted: true });
    const reason = budget.reason();
    this.finish(
      this.cancelReason !== undefined
        ? this.cancelledOutcome()
        : {
            stopReason: 'error',
            error: {
              code: 'BUDGET_EXHAUSTED',
              message: `${reason} (${budget.spent} tokens used); agents still running were cancelled and no more start`,
            },
          },
      reason,
    );
  };

  /** The script's heap passed `maxScriptMemoryMb`: its thread is stopped now, not after a grace. */
  private readonly onScriptMemory = (usedBytes?: number): void => {
    if (this.outcome || this.stage === 'ended') return;
    const limit = this.setup.limits.maxScriptMemoryMb;
    const reason = `the workflow script used more than its memory limit of ${limit} MB (maxScriptMemoryMb)`;
    const used = usedBytes === undefined ? '' : ` (${Math.round(usedBytes / 1048576)} MB in use)`;
    this.finish(
      this.cancelReason !== undefined
        ? this.cancelledOutcome()
        : {
            stopReason: 'error',
            error: {
              code: 'SCRIPT_MEMORY',
              message: `${reason}${used}; the script was stopped and agents still running were cancelled`,
            },
          },
      reason,
    );
    this.terminate();
  };

  /** `maxRunMs` passed since `started`: the run ends like a cancel, as an error. */
  private readonly onRunTimeout = (): void => {
    this.runTimer = undefined;
    if (this.outcome || this.stage === 'ended') return;
    const reason = `the workflow run reached its time limit of ${this.setup.limits.maxRunMs} ms (maxRunMs)`;
    this.post(HostMessage.Cancel, { reason });
    this.finish(
      this.cancelReason !== undefined
        ? this.cancelledOutcome()
        : {
            stopReason: 'error',
            error: {
              code: 'RUN_TIMEOUT',
              message: `${reason}; agents still running were cancelled`,
            },
          },
      reason,
    );
  };

  /** Once the outcome is known nothing the worker says matters; it is terminated next. */
  private readonly onMessage = (raw: unknown): void => {
    if (this.stage === 'ended' || this.outcome) return;
    const reading = readWorkerMessage(raw);
    if ('fault' in reading) {
      this.protocolFault(reading.fault);
      return;
    }
    const { message } = reading;
    const wrongTime = this.outOfOrder(message);
    if (wrongTime !== undefined) {
      this.protocolFault(wrongTime);
      return;
    }
    const { context } = this.setup;
    switch (message.tag) {
      case WorkerMessage.Ready:
        this.stage = 'running';
        this.post(HostMessage.Go, {});
        return;
      case WorkerMessage.Started:
        this.scriptStarted = true;
        if (this.setup.limits.maxRunMs !== undefined) {
          this.runTimer = setTimeout(this.onRunTimeout, this.setup.limits.maxRunMs);
        }
        return;
      case WorkerMessage.AgentStart: {
        const { call, prompt, options, workflow } = message.payload;
        this.lastCall = call;
        this.children.request({
          call,
          prompt,
          options,
          phase: options.phase ?? this.currentPhases.get(workflow) ?? '',
          ...(workflow !== undefined ? { workflow } : {}),
        });
        return;
      }
      case WorkerMessage.Phase: {
        const { title, workflow } = message.payload;
        this.currentPhases.set(workflow, title);
        context.emit(workflowPhase, {
          runId: this.id,
          time: Date.now(),
          title,
          ...(workflow !== undefined ? { workflow } : {}),
        });
        return;
      }
      case WorkerMessage.Log: {
        const { message: text, workflow } = message.payload;
        context.emit(workflowLog, {
          runId: this.id,
          time: Date.now(),
          message: text,
          ...(workflow !== undefined ? { workflow } : {}),
        });
        return;
      }
      case WorkerMessage.Done:
        // An engine that stopped its script for memory names the limit to the children it leaves.
        this.finish(
          this.outcomeOfDone(message.payload),
          message.payload.kind === 'error' && message.payload.code === 'SCRIPT_MEMORY'
            ? message.payload.message
            : undefined,
        );
        return;
      case WorkerMessage.WorkflowLoad: {
        const { load, target } = message.payload;
        this.lastLoad = load;
        const reply = this.loadWorkflow(target);
        this.post(HostMessage.WorkflowLoaded, { load, reply });
        if (reply.kind === 'fatal') this.startFailed(reply);
        return;
      }
      default:
        assertNever(message, 'worker message');
    }
  };

  /** The worker (or a script that reached its port) broke the protocol: the run ends, loud. */
  private protocolFault(fault: string): void {
    this.fail(`workflow protocol fault: the worker sent ${fault}; the run was stopped`);
  }

  /** A well-formed message the protocol does not allow now; undefined when it does. */
  private outOfOrder(message: WorkerEnvelope): string | undefined {
    if (message.tag === WorkerMessage.Ready) {
      return this.stage === 'booting' ? undefined : 'ready twice';
    }
    if (this.stage === 'booting') return `${message.tag} before ready`;
    if (message.tag === WorkerMessage.Started) {
      return this.scriptStarted ? 'started twice' : undefined;
    }
    // Only a running script calls hooks; `done` may come first (a cancel before the start, an
    // engine that could not load).
    if (message.tag !== WorkerMessage.Done && !this.scriptStarted) {
      return `${message.tag} before started`;
    }
    if (message.tag === WorkerMessage.AgentStart && message.payload.call !== this.lastCall + 1) {
      return `agent-start numbered ${message.payload.call} after ${this.lastCall}`;
    }
    if (message.tag === WorkerMessage.WorkflowLoad && message.payload.load !== this.lastLoad + 1) {
      return `workflow-load numbered ${message.payload.load} after ${this.lastLoad}`;
    }
    return undefined;
  }

  /**
   * Reads a nested `workflow()` call's target on the host, so a script never reads files; a
   * target that cannot run is a fatal reply naming it, and ends the run like a refused start.
   */
  private loadWorkflow(target: string): WorkflowLoadReply {
    try {
      if (!this.setup.loadWorkflow) {
        throw new WorkflowError('INVALID_ARGUMENT', 'this workflow engine cannot load workflows');
      }
      const loaded = this.setup.loadWorkflow(target);
      this.nestedMetas.set(loaded.name, loaded.meta);
      this.scriptFiles.unshift({
        compiledAs: nestedScriptFilename(loaded.name),
        path: loaded.path,
      });
      if (loaded.meta.budgetTokens !== undefined) {
        // One ceiling per run: said in the log rather than ignored in silence.
        this.setup.context.emit(workflowLog, {
          runId: this.id,
          time: Date.now(),
          message: `the nested workflow's budgetTokens (${loaded.meta.budgetTokens}) is not applied: a run has one token budget, the top script's`,
          workflow: loaded.name,
        });
      }
      return { kind: 'ok', name: loaded.name, script: loaded.body };
    } catch (error) {
      return {
        kind: 'fatal',
        code: error instanceof WorkflowError ? error.code : 'INVALID_ARGUMENT',
        message: `workflow(${JSON.stringify(target.slice(0, 200))}) cannot run: ${errorMessage(error)}`,
      };
    }
  }

  private readonly onError = (error: unknown): void => {
    // V8's heap limit (the backstop of the heap watch) ended the thread.
    if ((error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      this.onScriptMemory();
      return;
    }
    this.fail(`the workflow worker failed: ${errorMessage(error)}`);
  };

  private readonly onExit = (code: number): void => {
    this.workerExited = true;
    this.stopHeapWatch();
    this.worker.off('message', this.onMessage);
    this.worker.off('error', this.onError);
    this.worker.off('messageerror', this.onError);
    this.worker.off('exit', this.onExit);
    this.setup.onWorkerExit();
    this.fail(`the workflow worker exited (code ${code}) before the script finished`);
    if (this.final) this.resolveResult(this.final);
  };

  /** Ends the run as an error, or as cancelled when cancel was asked for. First outcome wins. */
  private fail(message: string): void {
    this.finish(
      this.cancelReason !== undefined
        ? this.cancelledOutcome()
        : { stopReason: 'error', error: { code: 'SCRIPT_ERROR', message } },
    );
  }

  /**
   * A child that could not start (AGENT_CAP, AGENT_START, UNSUPPORTED_SCHEMA) ends the run with
   * its code, whether or not the script awaits, drops or catches the call's promise.
   */
  private startFailed(reply: Extract<AgentReply | WorkflowLoadReply, { kind: 'fatal' }>): void {
    this.finish(
      this.cancelReason !== undefined
        ? this.cancelledOutcome()
        : { stopReason: 'error', error: { code: reply.code, message: reply.message } },
    );
  }

  private cancelledOutcome(): RunOutcome {
    return {
      stopReason: 'cancelled',
      error: { code: 'CANCELLED', message: `the workflow was cancelled: ${this.cancelReason}` },
    };
  }

  private outcomeOfDone(done: DoneOutcome): RunOutcome {
    if (this.cancelReason !== undefined) return this.cancelledOutcome();
    if (done.kind === 'ok') return { stopReason: 'completed', value: done.value };
    // The frames name the scripts' own files, not the names the engine compiled them under.
    return {
      stopReason: 'error',
      error: {
        code: done.code ?? 'SCRIPT_ERROR',
        message: placeScriptFrames(done.message, this.scriptFiles),
      },
    };
  }

  private startGrace(): void {
    if (this.graceTimer !== undefined) return;
    this.graceTimer = setTimeout(() => {
      this.graceTimer = undefined;
      if (!this.outcome) this.finish(this.cancelledOutcome());
      this.complete();
    }, this.setup.limits.cancelGraceMs);
  }

  /**
   * Records the outcome (first wins); the run ends once its children have ended. `childReason`
   * tells running children why they are cancelled, unless the caller cancelled.
   */
  private finish(outcome: RunOutcome, childReason?: string): void {
    if (this.outcome) return;
    this.outcome = outcome;
    if (this.children.active === 0) {
      this.children.cancelAll('the workflow has ended');
      this.complete();
      return;
    }
    this.stage = 'draining';
    this.children.cancelAll(
      this.cancelReason ??
        childReason ??
        'the workflow script ended without waiting for this agent',
    );
    this.startGrace();
  }

  private complete(): void {
    if (this.stage === 'ended') return;
    this.stage = 'ended';
    if (this.graceTimer !== undefined) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    clearTimeout(this.runTimer);
    this.runTimer = undefined;
    this.stopHeapWatch();
    this.setup.request.signal?.removeEventListener('abort', this.onAbort);
    this.stopBudget();
    this.children.endStranded('the workflow ended before this agent did');
    const outcome = this.outcome ?? this.cancelledOutcome();
    const error = outcome.stopReason === 'completed' ? undefined : outcome.error;
    this.final = {
      runId: this.id,
      name: this.setup.meta.name,
      stopReason: outcome.stopReason,
      value: outcome.stopReason === 'completed' ? outcome.value : null,
      ...(error ? { error } : {}),
      agentsStarted: this.children.started,
      failures: [...this.children.failures],
      usage: { ...this.children.usage },
      agents: [...this.children.agents].sort((first, second) => first.seq - second.seq),
      ...(this.children.costUsd !== undefined ? { costUsd: this.children.costUsd } : {}),
    };
    this.setup.context.emit(workflowEnd, {
      runId: this.id,
      time: Date.now(),
      stopReason: this.final.stopReason,
      agentsStarted: this.final.agentsStarted,
      ...(error ? { error: { ...error } } : {}),
    });
    if (this.workerExited) this.resolveResult(this.final);
    else this.terminate();
  }

  /** The exit event resolves the result; terminate itself reports nothing worth keeping. */
  private terminate(): void {
    this.worker.terminate().catch(() => {});
  }

  private post<Tag extends HostMessage>(tag: Tag, payload: HostPayloads[Tag]): void {
    if (this.workerExited || this.stage === 'ended') return;
    if (tag !== HostMessage.Cancel && tag !== HostMessage.Budget) this.syncBudget();
    this.outbox.send({ tag, payload } as HostEnvelope);
  }

  /**
   * Before a message that wakes the script, the spent tokens when they changed: one `budget`
   * message per batch, brought up to date while it is still queued. The worker reads a whole
   * batch before the script runs, so the script always sees the latest figure.
   */
  private syncBudget(): void {
    // Once the run's outcome is known the script only has to stop; figures no longer matter.
    if (this.outcome) return;
    const { spent } = this.setup.budget;
    if (spent === this.budgetSent) return;
    this.budgetSent = spent;
    if (this.budgetNote?.post === this.outbox.posts) {
      this.budgetNote.payload.spent = spent;
      return;
    }
    const payload = { spent, exhausted: false };
    this.budgetNote = { payload, post: this.outbox.posts };
    this.outbox.send({ tag: HostMessage.Budget, payload });
  }
}
