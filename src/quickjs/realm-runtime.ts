/**
 * One QuickJS runtime in a thread: a fresh WebAssembly instance of the module the host compiled
 * (its own memory, so nothing of an earlier script is left and the memory cap counts from a clean
 * start), its interrupt handler, and the realms (contexts) made in it, each with a use's prelude
 * evaluated and the one host function handed to it. Worker side only. It never posts anything
 * and never runs a script on its own: the use decides what to evaluate and when.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  RELEASE_SYNC,
} from 'quickjs-emscripten';
import { type CompiledWasm, quickJsWasm } from './wasm.js';

const MEBIBYTE = 1024 * 1024;
const WASM_PAGE_BYTES = 65536;
/** The module's declared memory: 16 MB at start, at most 2 GB (its import's own maximum). */
const INITIAL_PAGES = 256;
const MAXIMUM_PAGES = 32768;

/** What a realm's one host function is handed: an operation and its text; it answers text. */
export type HostCall = (op: string, payload: string) => string;

/** A QuickJS error value as plain data. */
export interface ReadError {
  name: string;
  message: string;
  stack: string;
}

/** What entering QuickJS gave: a handle the caller disposes, or the error it threw. */
export type Entered = { ok: true; value: QuickJSHandle } | { ok: false; error: ReadError };

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The part of Node's WebAssembly API used here (the project's TypeScript libs do not declare it). */
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly;

export interface RuntimeHooks {
  /** Asked at every interrupt check, after the memory cap; true interrupts (uncatchably). */
  shouldInterrupt(now: number): boolean;
  /** Called at most every `pollMs` while a script runs: the use reads its port for a stop. */
  poll(): void;
  pollMs: number;
  /** Called once, at the moment the heap is refused room past the cap. */
  onMemoryExceeded?(): void;
}

export function renderError(error: ReadError): string {
  const head = `${error.name}: ${error.message}`;
  return error.stack ? `${head}\n${error.stack}` : head;
}

/** A QuickJS error value as plain data; the handle is disposed. Never throws. */
export function readError(context: QuickJSContext, handle: QuickJSHandle): ReadError {
  try {
    const dumped: unknown = context.dump(handle);
    if (typeof dumped === 'object' && dumped !== null) {
      const { name, message, stack } = dumped as Record<string, unknown>;
      return {
        name: typeof name === 'string' ? name : 'Error',
        message: typeof message === 'string' ? message : String(dumped),
        stack: typeof stack === 'string' ? stack : '',
      };
    }
    return { name: 'Error', message: String(dumped), stack: '' };
  } catch {
    return { name: 'InternalError', message: 'out of memory', stack: '' };
  } finally {
    handle.dispose();
  }
}

/**
 * A runtime on a fresh instance. Its memory grows through `memory.grow`, wrapped here: past the
 * cap the growth is refused, the allocation fails at once (QuickJS throws "out of memory" in the
 * realm) and the runtime is marked. QuickJS's own memory limit counts nothing in this build (it
 * cannot read allocation sizes), so the cap is the heap. Without `compiled`, the thread compiles
 * its own module.
 */
export async function createRealmRuntime(
  hooks: RuntimeHooks,
  compiled: CompiledWasm = quickJsWasm(),
): Promise<RealmRuntime> {
  const memory = new wasmApi.Memory({ initial: INITIAL_PAGES, maximum: MAXIMUM_PAGES });
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, { wasmModule: compiled, wasmMemory: memory }),
  );
  return new RealmRuntime(module.newRuntime(), memory, hooks);
}

export class RealmRuntime {
  /** Nesting of calls into QuickJS from the use: messages wait while a script runs. */
  inside = 0;
  private capBytes = Number.POSITIVE_INFINITY;
  private exceeded = false;
  private nextPoll = 0;

  constructor(
    readonly runtime: QuickJSRuntime,
    private readonly memory: WasmMemory,
    private hooks: RuntimeHooks,
  ) {
    const grow = memory.grow.bind(memory);
    memory.grow = (pages: number): number => {
      if (memory.buffer.byteLength + pages * WASM_PAGE_BYTES > this.capBytes) {
        if (!this.exceeded) {
          this.exceeded = true;
          this.hooks.onMemoryExceeded?.();
        }
        throw new RangeError('the script reached its memory limit');
      }
      return grow(pages);
    };
    runtime.setInterruptHandler(() => {
      if (this.exceeded) return true;
      const now = performance.now();
      if (now >= this.nextPoll) {
        this.nextPoll = now + this.hooks.pollMs;
        this.hooks.poll();
      }
      return this.hooks.shouldInterrupt(now);
    });
  }

  /** The use that serves this runtime from now on (a runtime prepared ahead gets its run later). */
  serve(hooks: RuntimeHooks): void {
    this.hooks = hooks;
  }

  /** Caps the heap at its size now plus `memoryMb`. */
  capMemory(memoryMb: number): void {
    this.capBytes = this.memory.buffer.byteLength + memoryMb * MEBIBYTE;
  }

  /** Whether a script tried to grow the heap past the cap. */
  get overMemory(): boolean {
    return this.exceeded;
  }

  enter<Result>(action: () => Result): Result {
    this.inside += 1;
    try {
      return action();
    } finally {
      this.inside -= 1;
    }
  }

  /**
   * A fresh context with `prelude` (a use's `preludeSource`) evaluated under `filename` and
   * called with the host function and `settings` as JSON text: the realm, or the error.
   */
  newRealm(
    prelude: string,
    filename: string,
    hostCall: HostCall,
    settings: unknown,
  ): ScriptRealm | ReadError {
    const context = this.runtime.newContext();
    const factory = this.enter(() => context.evalCode(prelude, filename));
    if (factory.error) return readError(context, factory.error);
    const host = context.newFunction('hostCall', (opHandle, payloadHandle) =>
      context.newString(hostCall(context.getString(opHandle), context.getString(payloadHandle))),
    );
    const settingsText = context.newString(JSON.stringify(settings));
    const made = this.enter(() =>
      context.callFunction(factory.value, context.undefined, host, settingsText),
    );
    for (const handle of [factory.value, host, settingsText]) handle.dispose();
    if (made.error) return readError(context, made.error);
    return new ScriptRealm(this, context, made.value);
  }

  /** Runs the pending jobs (the scripts' continuations) until none is left. */
  pump(): ReadError | undefined {
    const result = this.enter(() => this.runtime.executePendingJobs(-1));
    if (!result.error) return undefined;
    return readError(result.error.context, result.error);
  }
}

/** One realm: its context and the prelude's internals, which the script never reaches. */
export class ScriptRealm {
  constructor(
    private readonly owner: RealmRuntime,
    readonly context: QuickJSContext,
    readonly internals: QuickJSHandle,
  ) {}

  /** Evaluates `code` under `filename`. */
  evaluate(code: string, filename: string): Entered {
    const result = this.owner.enter(() => this.context.evalCode(code, filename));
    if (result.error) return { ok: false, error: readError(this.context, result.error) };
    return { ok: true, value: result.value };
  }

  /** Calls the internal `name` with handles, strings or numbers; undefined when it returned. */
  call(name: string, args: ReadonlyArray<QuickJSHandle | string | number>): ReadError | undefined {
    const { context, internals } = this;
    const made: QuickJSHandle[] = [];
    try {
      const handles = args.map((arg) => {
        if (typeof arg === 'object') return arg;
        const handle = typeof arg === 'string' ? context.newString(arg) : context.newNumber(arg);
        made.push(handle);
        return handle;
      });
      const method = context.getProp(internals, name);
      made.push(method);
      const result = this.owner.enter(() => context.callFunction(method, internals, ...handles));
      if (result.error) return readError(context, result.error);
      result.value.dispose();
      return undefined;
    } finally {
      for (const handle of made) handle.dispose();
    }
  }
}
