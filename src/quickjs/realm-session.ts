/**
 * The worker side both uses share while a script runs: the interrupt (a slice's deadline, a stop,
 * the memory cap), the port read synchronously during a spin, the messages taken then and handled
 * once the script yields, the host promises a realm waits on, and its jobs. The use decides what
 * every ending means (`afterEntry`) and what the host function answers; this class never posts
 * to the port and never ends a run itself.
 */
import type { QuickJSHandle } from 'quickjs-emscripten';
import type { Entered, ReadError, RealmRuntime, ScriptRealm } from './realm-runtime.js';

/** Why the interrupt handler stopped the running script. */
export type Interruption = 'stop' | 'deadline' | 'memory';

/** Where QuickJS was entered, for the use's reading of how it came back. */
export type EntryPoint = 'body' | 'internal' | 'jobs';

export interface SessionRealm {
  script: ScriptRealm | undefined;
  live: boolean;
}

/** The port a script thread reads at once during a spin. */
export interface SpinPort {
  receive(): { message: unknown } | undefined;
}

/** What the use of a session decides; every method is called synchronously, never throws. */
export interface RealmUse<Message> {
  /** Whether the run still takes script work. */
  running(): boolean;
  /** A message taken during a spin: `queue` it, or `interrupt` to stop the script now. */
  takeDuringSpin(raw: unknown): void;
  /** A queued message, once the script has yielded. */
  handle(message: Message): void;
  /** Asked at every interrupt check: a reason stops the running script. */
  stopNow(now: number): Interruption | undefined;
  /** How an entry came back (`error` is what QuickJS threw); true when the run ended. */
  afterEntry(point: EntryPoint, error: ReadError | undefined): boolean;
  /** A fault of the engine itself (QuickJS's own calls threw). */
  engineFault(error: unknown): void;
  /** The heap was refused room past the cap, at that moment. */
  onMemoryExceeded?(): void;
}

export class RealmSession<Message> {
  runtime: RealmRuntime | undefined;
  private interruption: Interruption | undefined;
  private readonly inbox: Message[] = [];
  private sliceDeadline = Number.POSITIVE_INFINITY;
  private pumpQueued = false;
  private lastHostPromise = 0;

  constructor(
    private readonly spinPort: SpinPort,
    private readonly pollMs: number,
    private readonly use: RealmUse<Message>,
  ) {}

  /** Serves `runtime` from now on: its interrupt handler asks this session. */
  attach(runtime: RealmRuntime): void {
    this.runtime = runtime;
    runtime.serve({
      shouldInterrupt: (now) => this.shouldInterrupt(now),
      poll: () => this.poll(),
      pollMs: this.pollMs,
      onMemoryExceeded: () => this.use.onMemoryExceeded?.(),
    });
  }

  get overMemory(): boolean {
    return this.runtime?.overMemory ?? false;
  }

  takeInterruption(): Interruption | undefined {
    const interruption = this.interruption;
    this.interruption = undefined;
    return interruption;
  }

  queue(message: Message): void {
    this.inbox.push(message);
  }

  /** Stops the running script at the next interrupt check (a `stop` read during a spin). */
  interrupt(reason: Interruption): void {
    this.interruption ??= reason;
  }

  /** Evaluates `body` as `(async () => {body\n})()`, its first slice cut past `firstSliceMs`. */
  evaluateBody(
    realm: SessionRealm,
    body: string,
    filename: string,
    firstSliceMs = Number.POSITIVE_INFINITY,
  ): Entered | undefined {
    if (!realm.script) return undefined;
    this.sliceDeadline = performance.now() + firstSliceMs;
    try {
      return realm.script.evaluate(`(async () => {${body}\n})()`, filename);
    } catch (error) {
      this.use.engineFault(error);
      return undefined;
    } finally {
      this.sliceDeadline = Number.POSITIVE_INFINITY;
    }
  }

  /** Hands the body's completion to the prelude's `watch` and runs the jobs it queued. */
  watch(realm: SessionRealm, completion: QuickJSHandle): void {
    const ended = this.callInternal(realm, 'watch', [completion]);
    completion.dispose();
    if (!ended) this.pump();
  }

  /** Calls one of the realm's internals; true when the run ended meanwhile. */
  callInternal(
    realm: SessionRealm,
    name: string,
    args: ReadonlyArray<QuickJSHandle | string | number>,
  ): boolean {
    if (!realm.live || !realm.script || !this.use.running()) return true;
    let error: ReadError | undefined;
    try {
      error = realm.script.call(name, args);
    } catch (fault) {
      this.use.engineFault(fault);
      return true;
    }
    return this.use.afterEntry('internal', error);
  }

  /** A host promise the realm waits on, settled into it through `settle` with `reply`'s text. */
  track(
    realm: SessionRealm,
    promise: Promise<unknown>,
    reply: (settled: { value: unknown } | { error: unknown }) => object,
  ): number {
    this.lastHostPromise += 1;
    const id = this.lastHostPromise;
    promise.then(
      (value) => this.settle(realm, id, reply({ value })),
      (error: unknown) => this.settle(realm, id, reply({ error })),
    );
    return id;
  }

  /** Settles the realm's pending host call `id` with `reply` (`{v}`, `{t}` or `{e}`), then its jobs. */
  settle(realm: SessionRealm, id: number, reply: object): void {
    if (!realm.live || !this.use.running()) return;
    if (!this.callInternal(realm, 'settle', [id, JSON.stringify(reply)])) this.queuePump();
  }

  queuePump(): void {
    if (this.pumpQueued || !this.use.running()) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
      this.afterSlice();
    });
  }

  /** Runs the realms' pending jobs (the scripts' continuations) until none is left. */
  pump(): void {
    const runtime = this.runtime;
    if (!runtime || !this.use.running() || runtime.inside > 0) return;
    let error: ReadError | undefined;
    try {
      error = runtime.pump();
    } catch (fault) {
      this.use.engineFault(fault);
      return;
    }
    this.use.afterEntry('jobs', error);
  }

  /** The messages taken while the script ran, handled now that it has yielded. */
  afterSlice(): void {
    if ((this.runtime?.inside ?? 0) > 0) return;
    while (this.inbox.length > 0 && this.use.running())
      this.use.handle(this.inbox.shift() as Message);
  }

  private shouldInterrupt(now: number): boolean {
    if (!this.use.running() || this.interruption !== undefined) return true;
    if (now > this.sliceDeadline) this.interruption = 'deadline';
    else this.interruption = this.use.stopNow(now);
    return this.interruption !== undefined;
  }

  private poll(): void {
    for (;;) {
      const received = this.spinPort.receive();
      if (received === undefined) return;
      this.use.takeDuringSpin(received.message);
    }
  }
}
