/**
 * The worker side of a workflow run, over any message port (the worker's `parentPort`, or one end
 * of an in-process `MessageChannel` in tests). It says `ready`, waits for `go`, runs the body in a
 * vm context whose globals are exactly the hooks and `args` (a `workflow()` call's body in a fresh
 * one), and posts `done` exactly once. It never runs the body of a run cancelled before `go`, and
 * it never lets a hook promise the script drops raise an unhandled rejection. The vm is not a
 * security boundary (see README.md).
 */
import vm from 'node:vm';
import { assertNever } from '../core/errors.js';
import { createBudgetHook } from './budget-hook.js';
import { createParallelHook, createPipelineHook } from './combinators.js';
import { WorkflowError, type WorkflowLimits } from './contract.js';
import {
  createAgentHook,
  createLogHook,
  createPhaseHook,
  fatal,
  type HookHost,
  handOut,
} from './hooks.js';
import { materializeFromRealm, realmPrototypes } from './materialize.js';
import { createWorkflowHook, type NestedScript, type NestingSession } from './nested-workflow.js';
import {
  type AgentReply,
  type AgentStartOptions,
  type DoneOutcome,
  envelopesOf,
  HostMessage,
  readHostMessage,
  sendToHost,
  type WirePort,
  WorkerMessage,
  type WorkerSessionData,
  type WorkflowLoadReply,
} from './protocol.js';
import { renderForScript, SCRIPT_FILENAME, withScriptFrames } from './render-thrown.js';

/** Starts the session: posts `ready` and waits for the host. Returns at once. */
export function runWorkerSession(port: WirePort, data: WorkerSessionData): void {
  new WorkerSession(port, data).listen();
}

/**
 * The worker's start: with its session data (`workerData`), or, for a thread started ahead of
 * its run (no `workerData`), once the host's first message has brought that data.
 */
export function startWorkerSession(port: WirePort, data: WorkerSessionData | null): void {
  if (data) {
    runWorkerSession(port, data);
    return;
  }
  const onData = (message: unknown) => {
    port.off('message', onData);
    runWorkerSession(port, message as WorkerSessionData);
  };
  port.on('message', onData);
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: WorkflowError): void;
}

interface PendingLoad {
  resolve(loaded: { name: string; script: string }): void;
  reject(error: WorkflowError): void;
}

/** A host of a realm's hooks; the realm sets which prototypes may leave it. */
interface RealmHost extends HookHost {
  allowedPrototypes: ReadonlySet<object | null>;
}

type State = 'waiting' | 'running' | 'finished';

class WorkerSession implements NestingSession {
  readonly limits: WorkflowLimits;
  readonly cancellation: Promise<never>;
  readonly budgetTotal: number | null;
  allowedPrototypes: ReadonlySet<object | null> = new Set();
  private readonly port: WirePort;
  private readonly data: WorkerSessionData;
  private state: State = 'waiting';
  private stopError: WorkflowError | undefined;
  private rejectCancellation: (error: WorkflowError) => void = () => {};
  private lastCall = 0;
  private spent = 0;
  private readonly pending = new Map<number, PendingCall>();
  private lastLoad = 0;
  private readonly pendingLoads = new Map<number, PendingLoad>();

  constructor(port: WirePort, data: WorkerSessionData) {
    this.port = port;
    this.data = data;
    this.limits = data.limits;
    this.budgetTotal = data.budgetTotal;
    this.cancellation = handOut(
      new Promise<never>((_resolve, reject) => {
        this.rejectCancellation = reject;
      }),
    );
  }

  listen(): void {
    this.port.on('message', this.onMessage);
    sendToHost(this.port, WorkerMessage.Ready, {});
  }

  stopped(): WorkflowError | undefined {
    return this.stopError;
  }

  requestAgent(prompt: string, options: AgentStartOptions, workflow?: string): Promise<unknown> {
    this.lastCall += 1;
    const call = this.lastCall;
    const promise = new Promise<unknown>((resolve, reject) => {
      this.pending.set(call, { resolve, reject });
    });
    sendToHost(this.port, WorkerMessage.AgentStart, {
      call,
      prompt,
      options,
      ...(workflow !== undefined ? { workflow } : {}),
    });
    return promise;
  }

  postPhase(title: string, workflow?: string): void {
    sendToHost(this.port, WorkerMessage.Phase, {
      title,
      ...(workflow !== undefined ? { workflow } : {}),
    });
  }

  postLog(message: string, workflow?: string): void {
    sendToHost(this.port, WorkerMessage.Log, {
      message,
      ...(workflow !== undefined ? { workflow } : {}),
    });
  }

  loadWorkflow(target: string): Promise<{ name: string; script: string }> {
    this.lastLoad += 1;
    const load = this.lastLoad;
    const promise = new Promise<{ name: string; script: string }>((resolve, reject) => {
      this.pendingLoads.set(load, { resolve, reject });
    });
    sendToHost(this.port, WorkerMessage.WorkflowLoad, { load, target });
    return promise;
  }

  async runNestedScript({ name, script, args, host }: NestedScript): Promise<unknown> {
    try {
      return await this.runScript(script, args, host, {
        filename: `${name.replace(/[^\w.-]+/g, '-')}/${SCRIPT_FILENAME}`,
        label: `workflow(${JSON.stringify(name)}) return value`,
      });
    } catch (error) {
      if (!isCode(error, 'ERR_SCRIPT_EXECUTION_TIMEOUT')) throw error;
      throw withScriptFrames(
        new Error(
          `the nested workflow ${JSON.stringify(name)}: its first synchronous slice ran longer than ${this.limits.syncTimeoutMs} ms (syncTimeoutMs) and was stopped; await between long computations`,
        ),
      );
    }
  }

  budgetSpent(): number {
    return this.spent;
  }

  /** The host batches what it sends in one turn: a post may carry several envelopes. */
  private readonly onMessage = (post: unknown): void => {
    for (const raw of envelopesOf(post)) {
      if (this.state === 'finished') return;
      this.onEnvelope(raw);
    }
  };

  private onEnvelope(raw: unknown): void {
    const message = readHostMessage(raw);
    if (message === undefined) {
      this.finish({
        kind: 'error',
        message: 'workflow protocol fault: an unknown message',
        fatal: true,
      });
      return;
    }
    switch (message.tag) {
      case HostMessage.Go:
        if (this.state === 'waiting') {
          this.state = 'running';
          void this.execute();
        }
        return;
      case HostMessage.AgentResult:
        this.settleCall(message.payload.call, message.payload.reply);
        return;
      case HostMessage.Cancel:
        this.cancel(message.payload.reason);
        return;
      case HostMessage.WorkflowLoaded:
        this.settleLoad(message.payload.load, message.payload.reply);
        return;
      case HostMessage.Budget:
        this.spent = message.payload.spent;
        if (message.payload.exhausted) this.budgetExhausted();
        return;
      default:
        assertNever(message, 'host message');
    }
  }

  private settleCall(call: number, reply: AgentReply): void {
    const pending = this.pending.get(call);
    if (!pending) return;
    this.pending.delete(call);
    if (reply.kind === 'ok') pending.resolve(reply.value);
    else if (reply.kind === 'failure') pending.resolve(null);
    else pending.reject(fatal(reply.code, reply.message));
  }

  private settleLoad(load: number, reply: WorkflowLoadReply): void {
    const pending = this.pendingLoads.get(load);
    if (!pending) return;
    this.pendingLoads.delete(load);
    if (reply.kind === 'ok') pending.resolve({ name: reply.name, script: reply.script });
    else pending.reject(fatal(reply.code, reply.message));
  }

  private cancel(reason: string): void {
    if (this.stopError) return;
    const error = fatal('CANCELLED', `the workflow was cancelled: ${reason}`);
    this.stop(error);
    this.rejectCancellation(error);
    if (this.state === 'waiting') {
      this.finish({ kind: 'error', code: 'CANCELLED', message: error.message, fatal: true });
    }
  }

  /** The host ends the run; the script learns why from every pending and later hook call. */
  private budgetExhausted(): void {
    if (this.stopError) return;
    const error = fatal(
      'BUDGET_EXHAUSTED',
      `the token budget of ${this.budgetTotal} tokens is spent (${this.spent} used); no more agents start in this run`,
    );
    this.stop(error);
    this.rejectCancellation(error);
  }

  /** Every pending and future hook call now fails with `error`. */
  private stop(error: WorkflowError): void {
    this.stopError ??= error;
    const pending = [...this.pending.values(), ...this.pendingLoads.values()];
    this.pending.clear();
    this.pendingLoads.clear();
    for (const call of pending) call.reject(error);
  }

  private async execute(): Promise<void> {
    let outcome: DoneOutcome;
    try {
      const value = await this.runScript(this.data.script, this.data.args, this, {
        filename: SCRIPT_FILENAME,
        label: 'return value',
      });
      outcome = { kind: 'ok', value };
    } catch (error) {
      outcome = this.describeFailure(error);
    }
    this.finish(outcome);
  }

  /** Compiles `script`, runs it in a fresh realm whose hooks serve `host`, copies out its value. */
  private async runScript(
    script: string,
    args: Record<string, unknown>,
    host: RealmHost,
    names: { filename: string; label: string },
  ): Promise<unknown> {
    const compiled = compile(script, names.filename);
    const context = this.createRealm(args, host);
    const completion: unknown = compiled.runInContext(context, {
      timeout: this.limits.syncTimeoutMs,
    });
    const value = await completion;
    return materializeFromRealm(value, {
      label: names.label,
      allowedPrototypes: host.allowedPrototypes,
      maximumBytes: this.limits.maxResultBytes,
    });
  }

  /** A fresh vm context whose globals are the hooks serving `host` and a copy of `args`. */
  private createRealm(args: Record<string, unknown>, host: RealmHost): vm.Context {
    const globals = Object.create(null) as Record<string, unknown>;
    Object.assign(globals, {
      agent: createAgentHook(host),
      parallel: createParallelHook(host),
      pipeline: createPipelineHook(host),
      phase: createPhaseHook(host),
      log: createLogHook(host),
      args: structuredClone(args),
      budget: createBudgetHook(host),
      workflow: createWorkflowHook(this, host),
    });
    const context = vm.createContext(globals, { name: 'workflow script' });
    // V8 gives every context a `console`; the script's surface is the hooks and the language.
    vm.runInContext('delete globalThis.console', context);
    host.allowedPrototypes = realmPrototypes(context);
    return context;
  }

  private describeFailure(error: unknown): DoneOutcome {
    if (error instanceof WorkflowError) {
      return { kind: 'error', code: error.code, message: error.message, fatal: error.fatal };
    }
    if (isCode(error, 'ERR_SCRIPT_EXECUTION_TIMEOUT')) {
      return {
        kind: 'error',
        message: `the script's first synchronous slice ran longer than ${this.limits.syncTimeoutMs} ms (syncTimeoutMs) and was stopped; await between long computations`,
        fatal: true,
      };
    }
    return { kind: 'error', message: renderForScript(error), fatal: false };
  }

  private finish(outcome: DoneOutcome): void {
    if (this.state === 'finished') return;
    this.state = 'finished';
    this.stop(fatal('CANCELLED', 'the workflow script has already finished'));
    this.port.off('message', this.onMessage);
    sendToHost(this.port, WorkerMessage.Done, outcome);
  }
}

/** The host checked the body already; a compile failure here still ends the run loud. */
function compile(script: string, filename: string): vm.Script {
  try {
    return new vm.Script(`(async () => {${withoutHashBang(script)}\n})()`, { filename });
  } catch (error) {
    throw fatal('SCRIPT_PARSE', `the script does not compile: ${renderForScript(error)}`);
  }
}

/** A `#!` line is allowed by the pre-parse at the very start only; inside the wrapper it is blanked. */
function withoutHashBang(script: string): string {
  return script.startsWith('#!') ? script.replace(/^#![^\r\n\u2028\u2029]*/, '') : script;
}

/** Node's own errors carry a `code`; read it without trusting the value's shape. */
function isCode(error: unknown, code: string): boolean {
  try {
    return (error as { code?: unknown } | null)?.code === code;
  } catch {
    return false;
  }
}
