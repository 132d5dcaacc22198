/**
 * The QuickJS WebAssembly that Loom's two script engines run (the isolated workflow engine and
 * Code Mode): the release build's file, compiled once per thread that asks (a few milliseconds;
 * V8 compiles each function when it is first called).
 *
 * A compiled module may be handed to a worker thread, and every thread that instantiates it
 * shares its code, including what V8 re-compiles with its optimizing tier as scripts run. That
 * code lives as long as some thread holds the module; the hosts of both engines keep it for the
 * process's life, so a run after the first starts at full speed (a script's loop runs on the code
 * its call started with: a first run's long loop stays on the baseline code, about a third slower).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A compiled `WebAssembly.Module` (the project's TypeScript libs do not declare WebAssembly). */
export type CompiledWasm = object;

const wasmApi = (
  globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => CompiledWasm } }
).WebAssembly;

let compiled: CompiledWasm | undefined;

/** The release build's WebAssembly, compiled at the first call in this thread. */
export function quickJsWasm(): CompiledWasm {
  if (compiled) return compiled;
  const packageRequire = createRequire(
    createRequire(import.meta.url).resolve('quickjs-emscripten'),
  );
  compiled = new wasmApi.Module(
    readFileSync(packageRequire.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')),
  );
  return compiled;
}

/**
 * The module for a host to hand its threads, or undefined when it cannot be loaded here: the
 * thread then tries on its own, and its first run says why QuickJS could not be loaded.
 */
export function quickJsWasmForThreads(): CompiledWasm | undefined {
  try {
    return quickJsWasm();
  } catch {
    return undefined;
  }
}
