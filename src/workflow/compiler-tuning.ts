/**
 * Tunes V8 for a workflow's fan-out, once per process, when a run starts its `FAN_OUT_AGENTS`th
 * agent. A run's children are many short-lived agents that each run the same code once; V8's
 * optimizing compiler then spends more CPU compiling that code (on its own threads, again after
 * every new object shape) than the compiled code saves before the run ends. A budget ten times
 * V8's (how much bytecode a function must run before it is optimized) still optimizes what stays
 * hot, later. Measured on a 1000-agent run of instant children: about 0.25 ms less CPU per
 * agent. Never overrides an `--interrupt-budget` the user gave Node. Node keeps V8's flags
 * writable for `v8.setFlagsFromString`; this one is a number the compiler reads when it next
 * weighs a function, so changing it while threads run changes only when code is optimized.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * A run with fewer agents never gets far enough for the compiler to matter, and waiting this
 * long leaves a short run's start untouched (the script's thread is still loading Node's own
 * modules early on, and V8 would compile those from source once a flag has changed).
 */
export const FAN_OUT_AGENTS = 32;

/** Ten times V8 11's default of 67,584 (Node 20). */
export const FAN_OUT_INTERRUPT_BUDGET = 675_840;

/**
 * Read by bin/cached-bundle.js: V8 refuses a code cache made under other flags, so a chunk
 * loaded once the flag is set keeps its cache apart from the one made without it (otherwise
 * commands that run workflows and commands that do not would rewrite each other's caches).
 */
export const CODE_CACHE_VARIANT = Symbol.for('loom.code-cache-variant');
export const FAN_OUT_VARIANT = 'fan-out';
/** Set by bin/cached-bundle.js: writes the caches it has yet to write, under today's flags. */
const CODE_CACHE_SAVE = Symbol.for('loom.code-cache-save');

let tuned = false;

/** Sets the fan-out budget unless this process did already or the user chose a budget. */
export function tuneCompilerForFanOut(
  userOptions: readonly string[] = [
    ...process.execArgv,
    ...(process.env.NODE_OPTIONS ?? '').split(/\s+/),
  ],
): void {
  if (tuned) return;
  tuned = true;
  if (userOptions.some((option) => /^--interrupt[-_]budget(=|$)/.test(option))) return;
  const saveCodeCaches = (globalThis as Record<symbol, unknown>)[CODE_CACHE_SAVE];
  if (typeof saveCodeCaches === 'function') saveCodeCaches();
  setFlagsFromString(`--interrupt-budget=${FAN_OUT_INTERRUPT_BUDGET}`);
  (globalThis as Record<symbol, unknown>)[CODE_CACHE_VARIANT] = FAN_OUT_VARIANT;
}
