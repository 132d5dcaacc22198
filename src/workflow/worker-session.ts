/**
 * The worker side of a workflow run, over any message port (the worker's `parentPort`, or one end
 * of an in-process `MessageChannel` in tests). It says `ready`, waits for `go`, runs the body in a
 * vm context whose globals are exactly the hooks and `args` (a `workflow()` call's body in a fresh
 * one), and posts `done` exactly once. It never runs the body of a run cancelled before `go`, and
 * it never lets a hook promise the script drops raise an unhandled rejection. The vm is not a
 * security boundary (see README.md).
 */
import vm from 'node:vm';
import { createBudgetHook } from './budget-hook.js';
import { createParallelHook, createPipelineHook } from './combinators.js';
import { WorkflowError } from './contract.js';
import { createAgentHook, createLogHook, createPhaseHook, fatal, type HookHost } from './hooks.js';
import { materializeFromRealm, realmPrototypes } from './materialize.js';
import { createWorkflowHook, type NestedScript } from './nested-workflow.js';
import type { DoneOutcome, WirePort, WorkerSessionData } from './protocol.js';
import {
  nestedScriptFilename,
  renderForScript,
  SCRIPT_FILENAME,
  withScriptFrames,
} from './render-thrown.js';
import { SessionWire } from './session-wire.js';

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

/** A host of a realm's hooks; the realm sets which prototypes may leave it. */
interface RealmHost extends HookHost {
  allowedPrototypes: ReadonlySet<object | null>;
}

class WorkerSession extends SessionWire {
  allowedPrototypes: ReadonlySet<object | null> = new Set();

  async runNestedScript({ name, script, args, host }: NestedScript): Promise<unknown> {
    try {
      return await this.runScript(script, args, host, {
        filename: nestedScriptFilename(name),
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

  protected async execute(): Promise<void> {
    let outcome: DoneOutcome;
    this.scriptStarts();
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
    const settle = vm.runInContext(SETTLER_SOURCE, context) as Settler;
    const completion: unknown = compiled.runInContext(context, {
      timeout: this.limits.syncTimeoutMs,
    });
    // Wrapped in this realm's object: resolving with the realm's value would call a `then` the
    // script put on its Object.prototype.
    const { value } = await new Promise<{ value: unknown }>((resolve, reject) => {
      settle(completion, (settled) => resolve({ value: settled }), reject);
    });
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
}

/**
 * Names the script reads as block-scoped copies of the realm's globals. A vm context answers every
 * global lookup through an interceptor, which made a loop of `Math.random()` 1.7 times slower than
 * in a plain context; a lexical binding is read from the closure. The script's own declarations
 * of these names shadow them, and writing one changes the script's copy only.
 */
const LOCAL_GLOBALS = [
  'agent',
  'parallel',
  'pipeline',
  'phase',
  'log',
  'args',
  'budget',
  'workflow',
  'Math',
  'JSON',
  'Object',
  'Array',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'BigInt',
  'Promise',
  'Date',
  'RegExp',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'Error',
  'TypeError',
  'RangeError',
  'Reflect',
  'parseInt',
  'parseFloat',
  'isNaN',
  'isFinite',
  'undefined',
  'NaN',
  'Infinity',
] as const;
const LOCALS_PREFIX = `{let ${LOCAL_GLOBALS.map((name) => `${name}=globalThis.${name}`).join(',')};`;

/** Awaits a script's completion in its own realm (see `SETTLER_SOURCE`); never throws. */
type Settler = (
  completion: unknown,
  fulfilled: (value: unknown) => void,
  rejected: (error: unknown) => void,
) => void;

/**
 * Run in each realm before the script: awaits the script's completion with the realm's own
 * `Promise`, captured first and set as the completion's own constructor, so the await reads
 * nothing the script can change (`Promise.prototype.then`, `constructor`, `Symbol.species`); the
 * worker's own `await` on a foreign promise would call its `then`.
 */
const SETTLER_SOURCE = `(() => {
  const PromiseConstructor = Promise;
  const defineProperty = Object.defineProperty;
  return (completion, fulfilled, rejected) => {
    defineProperty(completion, 'constructor', { value: PromiseConstructor });
    (async () => {
      let value;
      try {
        value = await completion;
      } catch (error) {
        rejected(error);
        return;
      }
      fulfilled(value);
    })();
  };
})()`;

/** The host checked the body already; a compile failure here still ends the run loud. */
function compile(script: string, filename: string): vm.Script {
  try {
    const body = `(async () => {${withoutHashBang(script)}\n})()`;
    return new vm.Script(`${LOCALS_PREFIX}${body}}`, { filename });
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
