/**
 * The worker end of the wire, shared by both engines' sessions: `ready`, then `go`, then
 * `started` when the top-level script begins (the host's `maxRunMs` counts from it); numbered
 * `agent()` calls and `workflow()` loads waiting for their replies; phase and log posts; the
 * host's `cancel` and `budget`; and `done`, posted exactly once. An engine adds only how a script
 * runs (`execute`, `runNestedScript`) and what a stop does to a running script (`stop`). It never
 * touches script values: replies resolve plain JSON data.
 */
import { assertNever } from '../base/errors.js';
import type { WorkflowError, WorkflowLimits } from './contract.js';
import { fatal, handOut } from './hooks.js';
import type { NestedScript, NestingSession } from './nested-workflow.js';
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

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: WorkflowError): void;
}

interface PendingLoad {
  resolve(loaded: { name: string; script: string }): void;
  reject(error: WorkflowError): void;
}

export type SessionState = 'waiting' | 'running' | 'finished';

export abstract class SessionWire<Port extends WirePort = WirePort> implements NestingSession {
  readonly limits: WorkflowLimits;
  readonly cancellation: Promise<never>;
  readonly budgetTotal: number | null;
  abstract readonly allowedPrototypes: ReadonlySet<object | null>;
  protected readonly port: Port;
  protected readonly data: WorkerSessionData;
  protected state: SessionState = 'waiting';
  protected stopError: WorkflowError | undefined;
  private rejectCancellation: (error: WorkflowError) => void = () => {};
  private spent = 0;
  private lastCall = 0;
  private readonly pending = new Map<number, PendingCall>();
  private lastLoad = 0;
  private readonly pendingLoads = new Map<number, PendingLoad>();

  constructor(port: Port, data: WorkerSessionData) {
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

  /** Runs the top-level body once `go` came; posts `done` through `finish`. */
  protected abstract execute(): Promise<void>;

  abstract runNestedScript(run: NestedScript): Promise<unknown>;

  listen(): void {
    this.port.on('message', this.onMessage);
    sendToHost(this.port, WorkerMessage.Ready, {});
  }

  /** Tells the host the top-level script runs from now on: its `maxRunMs` starts here. */
  protected scriptStarts(): void {
    sendToHost(this.port, WorkerMessage.Started, {});
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

  budgetSpent(): number {
    return this.spent;
  }

  /** The host batches what it sends in one turn: a post may carry several envelopes. */
  protected readonly onMessage = (post: unknown): void => {
    for (const raw of envelopesOf(post)) {
      if (this.state === 'finished') return;
      this.onEnvelope(raw);
    }
  };

  protected onEnvelope(raw: unknown): void {
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
    if (this.state === 'waiting') {
      this.finish({ kind: 'error', code: 'CANCELLED', message: error.message, fatal: true });
    }
  }

  /** The host ends the run; the script learns why from every pending and later hook call. */
  private budgetExhausted(): void {
    if (this.stopError) return;
    this.stop(
      fatal(
        'BUDGET_EXHAUSTED',
        `the token budget of ${this.budgetTotal} tokens is spent (${this.spent} used); no more agents start in this run`,
      ),
    );
  }

  /** Every pending and future hook call now fails with `error`; so does `cancellation`. */
  protected stop(error: WorkflowError): void {
    this.stopError ??= error;
    this.rejectCancellation(error);
    this.rejectPending(error);
  }

  /** Posts `done` once; calls still pending (and later ones) fail as already finished. */
  protected finish(outcome: DoneOutcome): void {
    if (this.state === 'finished') return;
    this.state = 'finished';
    this.stopError ??= fatal('CANCELLED', 'the workflow script has already finished');
    this.rejectPending(this.stopError);
    this.port.off('message', this.onMessage);
    sendToHost(this.port, WorkerMessage.Done, outcome);
  }

  private rejectPending(error: WorkflowError): void {
    const pending = [...this.pending.values(), ...this.pendingLoads.values()];
    this.pending.clear();
    this.pendingLoads.clear();
    for (const call of pending) call.reject(error);
  }
}
