/**
 * A program thread's QuickJS realms: the WebAssembly module is the one the host compiled once
 * for its process (or, without one, compiled here once per thread), and every program gets a
 * fresh instance of it (its own memory, so nothing of one program is left for the next and the
 * memory cap counts from a clean start), with a runtime, a context and the prelude already
 * evaluated. Worker side only; it never runs a program itself.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  RELEASE_SYNC,
} from 'quickjs-emscripten';
import { type CompiledWasm, quickJsWasm } from '../core/quickjs-wasm.js';
import { PROGRAM_ENGINE_FILENAME, PROGRAM_PRELUDE_SOURCE } from './program-prelude.js';

const MEBIBYTE = 1024 * 1024;
const WASM_PAGE_BYTES = 65536;

/** What the realm's one host function is handed: an operation and its text. */
export type HostCall = (op: string, payload: string) => string;

/** One prepared realm, used for one program and then dropped. */
export interface ProgramRealm {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** The prelude's internals (`setup`, `settle`, `watch`); never reachable from the program. */
  internals: QuickJSHandle;
  /** Caps the realm's memory at its size now plus `memoryMb`. */
  capMemory(memoryMb: number): void;
  /** Whether the program tried to grow the memory past the cap. */
  overMemory(): boolean;
}

/** What the realm calls back into: set when the realm is prepared, used for its whole life. */
export interface RealmCallbacks {
  hostCall: HostCall;
  /** Asked regularly while QuickJS runs; true interrupts the program (uncatchably). */
  shouldInterrupt(): boolean;
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The part of Node's WebAssembly API used here (the project's TypeScript libs do not declare it). */
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
    };
  }
).WebAssembly;

/** The module's declared memory: 16 MB at start, at most 2 GB (its import's own maximum). */
const INITIAL_PAGES = 256;
const MAXIMUM_PAGES = 32768;

/**
 * A fresh instance, runtime and context with the prelude evaluated. Its memory grows through
 * `memory.grow`, wrapped here: past the cap the growth is refused, the allocation fails at once
 * (QuickJS throws "out of memory" in the realm) and the realm is marked. QuickJS's own memory
 * limit counts nothing in this build (it cannot read allocation sizes), so the cap is the heap.
 * `compiled` is QuickJS's module as the host handed it (every thread then shares the code V8
 * optimizes for it); without it the thread compiles its own.
 */
export async function prepareRealm(
  callbacks: RealmCallbacks,
  compiled: CompiledWasm = quickJsWasm(),
): Promise<ProgramRealm> {
  const memory = new wasmApi.Memory({ initial: INITIAL_PAGES, maximum: MAXIMUM_PAGES });
  let capBytes = Number.POSITIVE_INFINITY;
  let exceeded = false;
  const grow = memory.grow.bind(memory);
  memory.grow = (pages: number): number => {
    if (memory.buffer.byteLength + pages * WASM_PAGE_BYTES > capBytes) {
      exceeded = true;
      throw new RangeError('the program reached its memory limit');
    }
    return grow(pages);
  };
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, { wasmModule: compiled, wasmMemory: memory }),
  );
  const runtime = module.newRuntime();
  runtime.setInterruptHandler(() => callbacks.shouldInterrupt());
  const context = runtime.newContext();
  const factory = context.evalCode(PROGRAM_PRELUDE_SOURCE, PROGRAM_ENGINE_FILENAME);
  const factoryHandle = context.unwrapResult(factory);
  const hostCall = context.newFunction('hostCall', (opHandle, payloadHandle) => {
    const op = context.getString(opHandle);
    const payload = context.getString(payloadHandle);
    return context.newString(callbacks.hostCall(op, payload));
  });
  const made = context.callFunction(factoryHandle, context.undefined, hostCall);
  factoryHandle.dispose();
  hostCall.dispose();
  const internals = context.unwrapResult(made);
  return {
    runtime,
    context,
    internals,
    capMemory(memoryMb) {
      capBytes = memory.buffer.byteLength + memoryMb * MEBIBYTE;
    },
    overMemory: () => exceeded,
  };
}

/** A program that takes the paths most programs take (globals, a tool call, console, JSON, jobs). */
const EXERCISE = `(async () => {
  const found = { list: [1, 'two', { three: true }], text: 'x'.repeat(10) };
  console.log('warm', found, 1.5);
  tools.tool({ path: 'a', options: [1, 2] });
  const text = JSON.stringify(found);
  await null;
  return JSON.parse(text).list.map((item) => typeof item).join(',');
})()`;

/**
 * Runs a throwaway program in `realm` (to be dropped afterwards), so that V8 compiles the
 * WebAssembly functions a program needs before the first real one waits on them.
 */
export function exerciseRealm(realm: ProgramRealm): void {
  const { context, internals, runtime } = realm;
  const names = context.newString('["tool"]');
  const setup = context.getProp(internals, 'setup');
  context.callFunction(setup, internals, names).dispose();
  const completion = context.evalCode(EXERCISE, 'exercise.js');
  if (!completion.error) {
    const watch = context.getProp(internals, 'watch');
    context.callFunction(watch, internals, completion.value).dispose();
    watch.dispose();
  }
  const jobs = runtime.executePendingJobs(-1);
  if (jobs.error) jobs.error.dispose();
  completion.error ? completion.error.dispose() : completion.value.dispose();
  for (const handle of [names, setup]) handle.dispose();
}
