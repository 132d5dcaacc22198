/**
 * The worker side of a workflow run on the isolated engine: the wire end it shares with
 * `worker-session.ts` is `session-wire.ts` (ready/go, agent-start/agent-result, phase, log,
 * workflow-load, budget, cancel, done), but the script runs in QuickJS compiled to WebAssembly, one runtime per run with
 * a memory limit and an interrupt handler, one context per realm (a nested `workflow()` gets a
 * fresh one). The script's only way out is one host function taking JSON text; every hook call is
 * checked here by the worker engine's own hook functions, on stand-ins for what crossed. Nothing
 * in the realm can reach Node, the environment, the file system or this port: only this session
 * posts, and only after those checks.
 */
import {
  createRealmRuntime,
  type ReadError,
  type RealmRuntime,
  renderError,
} from '../../quickjs/realm-runtime.js';
import {
  type EntryPoint,
  type Interruption,
  RealmSession,
  type RealmUse,
  type SessionRealm,
} from '../../quickjs/realm-session.js';
import { WorkflowError } from '../contract.js';
import {
  createAgentHook,
  createLogHook,
  createPhaseHook,
  fatal,
  type HookHost,
  handOut,
} from '../hooks.js';
import { createWorkflowHook, type NestedScript, type NestingSession } from '../nested-workflow.js';
import {
  type DoneOutcome,
  envelopesOf,
  HostMessage,
  readHostMessage,
  type WirePort,
  type WorkerSessionData,
} from '../protocol.js';
import { nestedScriptFilename, renderForScript, SCRIPT_FILENAME } from '../render-thrown.js';
import { SessionWire } from '../session-wire.js';
import { ENGINE_FILENAME, PRELUDE_SOURCE, type PreludeSettings } from './realm-prelude.js';
import { describeError, replyText, type Thrown, withoutHashBang } from './realm-values.js';
import { type Encoded, type Replied, standInFor, standInOptions } from './stand-ins.js';

/** A port the session can also read synchronously, so a spinning script still hears `cancel`. */
export interface IsolatedPort extends WirePort {
  /** The next queued message, taken at once; undefined when there is none. */
  receive(): { message: unknown } | undefined;
}

/** How often (ms) a running script's interrupt handler looks for a `cancel` on the port. */
const POLL_MS = 5;

/** The prototypes a value that crossed as JSON has: this realm's (see `materialize.ts`). */
const hostPrototypes: ReadonlySet<object | null> = new Set([
  Object.prototype,
  Array.prototype,
  null,
]);

/** Starts the session: posts `ready` (the WebAssembly module loads meanwhile) and waits. */
export function runIsolatedSession(port: IsolatedPort, data: WorkerSessionData): void {
  new IsolatedSession(port, data).listen();
}

/** The worker's start: with its session data, or once the host's first message brings it. */
export function startIsolatedSession(port: IsolatedPort, data: WorkerSessionData | null): void {
  if (data) {
    runIsolatedSession(port, data);
    return;
  }
  const onData = (message: unknown) => {
    port.off('message', onData);
    runIsolatedSession(port, message as WorkerSessionData);
  };
  port.on('message', onData);
}

interface RealmNames {
  filename: string;
  label: string;
}

/** One QuickJS context: its hooks serve `host`; `ended` hears how its script ended. */
interface Realm extends SessionRealm {
  host: HookHost;
  hooks: {
    agent: ReturnType<typeof createAgentHook>;
    phase: ReturnType<typeof createPhaseHook>;
    log: ReturnType<typeof createLogHook>;
    workflow: ReturnType<typeof createWorkflowHook>;
  };
  ended(outcome: { value: unknown } | { thrown: Thrown }): void;
  /** Names the realm's return value in messages. */
  label: string;
}

class IsolatedSession extends SessionWire<IsolatedPort> implements RealmUse<unknown> {
  readonly allowedPrototypes = hostPrototypes;
  private readonly loading: Promise<RealmRuntime>;
  private readonly session: RealmSession<unknown>;
  private readonly realms = new Set<Realm>();
  /** Once the run is stopped, a slice that runs past this time is interrupted. */
  private stopDeadline = Number.POSITIVE_INFINITY;
  /** Why a stop noticed while the script ran stopped it (the host's message is handled later). */
  private stopping: WorkflowError | undefined;

  constructor(port: IsolatedPort, data: WorkerSessionData) {
    super(port, data);
    this.session = new RealmSession(port, POLL_MS, this);
    const idle = { shouldInterrupt: () => false, poll: () => {}, pollMs: POLL_MS };
    this.loading = handOut(createRealmRuntime(idle, data.quickJs));
  }

  runNestedScript({ name, script, args, host }: NestedScript): Promise<unknown> {
    host.allowedPrototypes = hostPrototypes;
    return new Promise((resolve, reject) => {
      const names = {
        filename: nestedScriptFilename(name),
        label: `workflow(${JSON.stringify(name)}) return value`,
      };
      const started = this.startRealm(script, args, host, names, (outcome) => {
        if ('value' in outcome) {
          resolve(outcome.value);
          return;
        }
        const thrown = this.believed(outcome.thrown);
        if ('memory' in thrown) {
          this.outOfMemory();
          reject(fatal('SCRIPT_MEMORY', this.memoryMessage()));
        } else if ('interrupted' in thrown) {
          this.stopInterrupted();
          reject(this.stoppedError());
        } else if ('fatal' in thrown) reject(fatal(thrown.code, thrown.message));
        else reject(new Error(renderForScript(thrown.rendered)));
      });
      if (started === 'stopped') reject(this.stoppedError());
      if (started === 'timeout') {
        reject(
          new Error(
            `the nested workflow ${JSON.stringify(name)}: its first synchronous slice ran longer than ${this.limits.syncTimeoutMs} ms (syncTimeoutMs) and was stopped; await between long computations`,
          ),
        );
      }
    });
  }

  /** Every pending and future hook call now fails with `error`; a script still running is cut short. */
  protected override stop(error: WorkflowError): void {
    this.stopDeadline =
      performance.now() + Math.min(this.limits.syncTimeoutMs, this.limits.cancelGraceMs / 2);
    super.stop(error);
    for (const realm of this.realms) {
      this.session.callInternal(realm, 'stop', [error.code, error.message]);
    }
    this.session.queuePump();
  }

  protected override finish(outcome: DoneOutcome): void {
    if (this.state === 'finished') return;
    for (const realm of this.realms) realm.live = false;
    this.realms.clear();
    super.finish(outcome);
  }

  // --- running scripts ---

  protected async execute(): Promise<void> {
    let runtime: RealmRuntime;
    try {
      runtime = await this.loading;
    } catch (error) {
      this.finish({
        kind: 'error',
        message: `the isolated workflow engine could not load QuickJS: ${renderForScript(error)}`,
        fatal: true,
      });
      return;
    }
    if (this.state !== 'running') return;
    // The cap is on the heap itself: past it the allocation fails at once and the run ends with
    // SCRIPT_MEMORY right there, whatever the script catches (`done` is posted before QuickJS
    // unwinds the script and frees what it built, and the host ends the thread meanwhile).
    runtime.capMemory(this.limits.maxScriptMemoryMb);
    this.session.attach(runtime);
    const started = this.startRealm(
      this.data.script,
      this.data.args,
      this,
      { filename: SCRIPT_FILENAME, label: 'return value' },
      (outcome) => {
        if ('value' in outcome) {
          this.finish({ kind: 'ok', value: outcome.value });
          return;
        }
        this.finish(this.describeThrown(outcome.thrown));
      },
      // QuickJS is loaded and the realm's prelude ran: the script's own time starts (maxRunMs).
      () => this.scriptStarts(),
    );
    if (started === 'timeout') {
      this.finish({
        kind: 'error',
        message: `the script's first synchronous slice ran longer than ${this.limits.syncTimeoutMs} ms (syncTimeoutMs) and was stopped; await between long computations`,
        fatal: true,
      });
    }
  }

  /**
   * What the realm reported, unless it claims an ending only the session causes (running out of
   * memory, an interrupt) that the session did not cause: that is a value the script threw.
   */
  private believed(thrown: Thrown): Thrown {
    if ('memory' in thrown && !this.overMemory()) return { rendered: thrown.rendered };
    if ('interrupted' in thrown && !this.overMemory() && !(this.stopError ?? this.stopping)) {
      return { rendered: thrown.rendered };
    }
    return thrown;
  }

  private describeThrown(reported: Thrown): DoneOutcome {
    const thrown = this.believed(reported);
    if ('interrupted' in thrown) {
      // Believed: the session stopped the script, or its heap ran out meanwhile.
      const stop = this.stopError ?? this.stopping;
      if (stop && !this.overMemory()) {
        return { kind: 'error', code: stop.code, message: stop.message, fatal: true };
      }
    }
    if ('interrupted' in thrown || 'memory' in thrown) {
      return { kind: 'error', code: 'SCRIPT_MEMORY', message: this.memoryMessage(), fatal: true };
    }
    if ('fatal' in thrown) {
      return { kind: 'error', code: thrown.code, message: thrown.message, fatal: true };
    }
    return { kind: 'error', message: renderForScript(thrown.rendered), fatal: false };
  }

  private memoryMessage(): string {
    return `the workflow script used more than its memory limit of ${this.limits.maxScriptMemoryMb} MB (maxScriptMemoryMb); the script was stopped`;
  }

  private outOfMemory(): void {
    this.finish({
      kind: 'error',
      code: 'SCRIPT_MEMORY',
      message: this.memoryMessage(),
      fatal: true,
    });
  }

  /**
   * Makes a fresh context whose hooks serve `host`, runs the body's first slice under
   * `syncTimeoutMs`, and reports how the body ends through `ended`. Returns `timeout` when the
   * first slice was cut short, `stopped` when the run ended meanwhile. `beforeBody` runs once
   * the realm is made, just before the body's first statement.
   */
  private startRealm(
    script: string,
    args: Record<string, unknown>,
    host: HookHost,
    names: RealmNames,
    ended: Realm['ended'],
    beforeBody?: () => void,
  ): 'started' | 'timeout' | 'stopped' {
    const runtime = this.session.runtime;
    if (!runtime || this.state !== 'running') return 'stopped';
    const realm: Realm = {
      script: undefined,
      host,
      hooks: {
        agent: createAgentHook(host),
        phase: createPhaseHook(host),
        log: createLogHook(host),
        workflow: createWorkflowHook(this, host),
      },
      ended: (outcome) => {
        if (!realm.live) return;
        realm.live = false;
        this.realms.delete(realm);
        ended(outcome);
      },
      live: true,
      label: names.label,
    };
    const settings: PreludeSettings = {
      maxItemsPerCall: this.limits.maxItemsPerCall,
      maxResultBytes: this.limits.maxResultBytes,
      budgetTotal: this.budgetTotal,
      returnLabel: names.label,
      scriptFilename: names.filename,
      args,
    };
    try {
      const made = runtime.newRealm(
        PRELUDE_SOURCE,
        ENGINE_FILENAME,
        (op, payload) => this.hostCall(realm, op, payload),
        settings,
      );
      if (!('context' in made)) {
        if (!this.sliceFailed(this.session.takeInterruption())) {
          this.finish({
            kind: 'error',
            message: `the isolated workflow engine failed to start: ${renderError(made)}`,
            fatal: true,
          });
        }
        return 'stopped';
      }
      realm.script = made;
      this.realms.add(realm);
      beforeBody?.();
      const result = this.session.evaluateBody(
        realm,
        withoutHashBang(script),
        names.filename,
        this.limits.syncTimeoutMs,
      );
      if (result === undefined) return 'stopped';
      const interruption = this.session.takeInterruption();
      if (interruption === 'deadline' && this.state === 'running' && !this.stopError) {
        // QuickJS turns the interrupt inside the async body into a rejection: drop the realm.
        if (result.ok) result.value.dispose();
        realm.live = false;
        this.realms.delete(realm);
        return 'timeout';
      }
      if (interruption !== undefined || this.overMemory()) {
        if (result.ok) result.value.dispose();
        if (interruption === 'memory' || this.overMemory()) this.outOfMemory();
        else this.stopInterrupted();
        return 'stopped';
      }
      if (!result.ok) {
        if (!this.sliceFailed(undefined)) {
          realm.ended({
            thrown: {
              code: 'SCRIPT_PARSE',
              message: `the script does not compile: ${renderForScript(renderError(result.error))}`,
              fatal: true,
            },
          });
        }
        return 'started';
      }
      this.session.watch(realm, result.value);
      return 'started';
    } finally {
      this.session.afterSlice();
    }
  }

  /**
   * The one function the realm can call. It never throws: every answer is JSON text, `{v}`,
   * `{p}` (a pending host promise) or `{t}` (a fatal error to throw in the realm).
   */
  private hostCall(realm: Realm, op: string, payload: string): string {
    try {
      if (!realm.live) return replyText({ t: describeError(this.stoppedError()) });
      if (this.overMemory()) {
        this.outOfMemory();
        return replyText({ t: describeError(this.stoppedError()) });
      }
      switch (op) {
        case 'agent':
          return this.callHook(realm, 'agent', JSON.parse(payload) as Encoded[]);
        case 'workflow':
          return this.callHook(realm, 'workflow', JSON.parse(payload) as Encoded[]);
        case 'phase':
        case 'log':
          return this.callHook(realm, op, JSON.parse(payload) as Encoded[]);
        case 'stopped': {
          const stopped = realm.host.stopped();
          return replyText(stopped ? { t: describeError(stopped) } : { v: null });
        }
        case 'spent':
          return replyText({ v: realm.host.budgetSpent() });
        case 'returned':
          this.returned(realm, payload);
          return replyText({ v: null });
        case 'failed':
          realm.ended({ thrown: JSON.parse(payload) as Thrown });
          return replyText({ v: null });
        default:
          return replyText({ t: { code: 'SCRIPT_ERROR', message: `unknown host call ${op}` } });
      }
    } catch (error) {
      return replyText({ t: describeError(error) });
    }
  }

  private stoppedError(): WorkflowError {
    return this.stopError ?? fatal('CANCELLED', 'the workflow script has already finished');
  }

  private returned(realm: Realm, text: string): void {
    const bytes = Buffer.byteLength(text);
    if (bytes > this.limits.maxResultBytes) {
      realm.ended({
        thrown: {
          code: 'RESULT_TOO_LARGE',
          message: `${realm.label}: its JSON text is ${bytes} bytes, larger than ${this.limits.maxResultBytes} bytes (maxResultBytes); return less, or a summary`,
          fatal: true,
        },
      });
      return;
    }
    realm.ended({ value: JSON.parse(text) as unknown });
  }

  /**
   * Runs the worker engine's own hook on stand-ins for the realm's arguments. A plain value the
   * realm could not copy out is refused after those checks pass, as the worker engine orders it.
   */
  private callHook(
    realm: Realm,
    hook: 'agent' | 'workflow' | 'phase' | 'log',
    encoded: Encoded[],
  ): string {
    const deferred: Replied[] = [];
    const values =
      hook === 'agent'
        ? [standInFor(encoded[0], deferred), standInOptions(encoded[1], deferred)]
        : encoded.map((item) => standInFor(item, deferred));
    const [refusal] = deferred;
    if (refusal !== undefined && !realm.host.stopped()) {
      this.dryRun(realm, hook, values);
      throw fatal(refusal.code, refusal.message);
    }
    const result: unknown =
      hook === 'agent'
        ? realm.hooks.agent(values[0], values[1])
        : hook === 'workflow'
          ? realm.hooks.workflow(values[0], values[1])
          : realm.hooks[hook](values[0]);
    if (result instanceof Promise) return replyText({ p: this.track(realm, result) });
    return replyText({});
  }

  /** The hook's checks alone: throws what it would throw, starts and posts nothing. */
  private dryRun(realm: Realm, hook: 'agent' | 'workflow' | 'phase' | 'log', values: unknown[]) {
    const refused = () => handOut(Promise.reject(new Error('a dry run starts nothing')));
    const host = realm.host;
    const dry: NestingSession = {
      limits: host.limits,
      allowedPrototypes: host.allowedPrototypes,
      cancellation: host.cancellation,
      budgetTotal: host.budgetTotal,
      ...(host.workflowName !== undefined ? { workflowName: host.workflowName } : {}),
      stopped: () => host.stopped(),
      budgetSpent: () => host.budgetSpent(),
      requestAgent: refused,
      postPhase: () => {},
      postLog: () => {},
      loadWorkflow: refused,
      runNestedScript: refused,
    };
    if (hook === 'agent') createAgentHook(dry)(values[0], values[1]);
    else if (hook === 'workflow') createWorkflowHook(dry, host)(values[0], values[1]);
  }

  /** A host promise the realm waits on: settled into the realm when it settles. */
  private track(realm: Realm, promise: Promise<unknown>): number {
    return this.session.track(realm, promise, (settled) => {
      if ('value' in settled) return { v: settled.value };
      const { error } = settled;
      if (error instanceof WorkflowError) return { t: describeError(error) };
      return { e: { message: error instanceof Error ? error.message : renderForScript(error) } };
    });
  }

  // --- what the shared realm session asks (RealmUse) ---

  running(): boolean {
    return this.state === 'running';
  }

  handle(envelope: unknown): void {
    this.onEnvelope(envelope);
  }

  stopNow(now: number): Interruption | undefined {
    return this.stopError && now > this.stopDeadline ? 'stop' : undefined;
  }

  afterEntry(point: EntryPoint, error: ReadError | undefined): boolean {
    if (point === 'internal') {
      if (error && !this.sliceFailed(this.session.takeInterruption())) {
        this.finish({
          kind: 'error',
          message: `the isolated workflow engine failed: ${renderError(error)}`,
          fatal: true,
        });
      }
      return this.state === 'finished';
    }
    const interruption = this.session.takeInterruption();
    if (!error) {
      if (interruption === 'memory' || this.overMemory()) this.outOfMemory();
      else if (interruption !== undefined) this.stopInterrupted();
    } else if (!this.sliceFailed(interruption)) {
      this.finish({ kind: 'error', message: renderForScript(renderError(error)), fatal: false });
    }
    return this.state === 'finished';
  }

  engineFault(error: unknown): void {
    if (this.overMemory()) {
      this.outOfMemory();
      return;
    }
    this.finish({
      kind: 'error',
      message: `the isolated workflow engine failed: ${renderForScript(error)}`,
      fatal: true,
    });
  }

  onMemoryExceeded(): void {
    this.outOfMemory();
  }

  /** Takes what the host sent meanwhile; a cancel or a spent budget stops the script at once. */
  takeDuringSpin(raw: unknown): void {
    for (const envelope of envelopesOf(raw)) {
      this.session.queue(envelope);
      const message = readHostMessage(envelope);
      if (
        message?.tag !== HostMessage.Cancel &&
        !(message?.tag === HostMessage.Budget && message.payload.exhausted)
      ) {
        continue;
      }
      this.session.interrupt('stop');
      // The stop's reason must be known when the interrupted slice is reported.
      this.stopping ??=
        message.tag === HostMessage.Cancel
          ? fatal('CANCELLED', `the workflow was cancelled: ${message.payload.reason}`)
          : fatal(
              'BUDGET_EXHAUSTED',
              `the token budget of ${this.budgetTotal} tokens is spent (${message.payload.spent} used); no more agents start in this run`,
            );
    }
  }

  /**
   * A slice that ended with an uncatchable error: a stop or memory. Returns false for anything
   * else (the caller decides).
   */
  private sliceFailed(interruption: Interruption | undefined): boolean {
    if (this.state === 'finished') return true;
    // A script's own `new InternalError('out of memory')` is not the heap running out.
    if (interruption === 'memory' || this.overMemory()) {
      this.outOfMemory();
      return true;
    }
    if (interruption === 'stop' || (interruption === 'deadline' && this.stopError)) {
      const stop = this.stopError ?? this.stopping ?? this.stoppedError();
      this.finish({ kind: 'error', code: stop.code, message: stop.message, fatal: true });
      return true;
    }
    return false;
  }

  /** The script was interrupted outside its first slice: only a stop does that. */
  private stopInterrupted(): void {
    if (this.state === 'finished') return;
    const stop = this.stopError ?? this.stopping ?? this.stoppedError();
    this.finish({ kind: 'error', code: stop.code, message: stop.message, fatal: true });
  }

  /** Whether the script tried to grow its heap past maxScriptMemoryMb. */
  private overMemory(): boolean {
    return this.session.overMemory;
  }
}
