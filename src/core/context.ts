/**
 * The context: one small typed container of services and hooks, with child scopes (one per
 * agent) that shadow their parent for that agent only. Every registration returns its disposer.
 * Hooks declare their dispatch mode: `emit` observes (a throwing listener is reported and never
 * breaks the emitter), `waterfall` wraps (middleware may short-circuit), `serial` folds a value
 * through handlers awaited in order. The context must never know any capability's types.
 */
import { errorMessage, LoomError } from '../base/errors.js';

export type Disposer = () => void;

/** One undo for many: runs them last first, once; later calls do nothing. */
export function disposeAll(disposers: Disposer[]): Disposer {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const dispose of [...disposers].reverse()) dispose();
  };
}

export interface ServiceKey<T> {
  readonly name: string;
  /** Phantom: carries the service type; never set. */
  readonly type?: T;
}

export interface EmitHook<Payload> {
  readonly mode: 'emit';
  readonly name: string;
  readonly payload?: Payload;
}

export interface WaterfallHook<Input, Output> {
  readonly mode: 'waterfall';
  readonly name: string;
  readonly input?: Input;
  readonly output?: Output;
}

export interface SerialHook<Input, Value> {
  readonly mode: 'serial';
  readonly name: string;
  readonly input?: Input;
  readonly value?: Value;
}

export type EmitListener<Payload> = (payload: Payload) => void | Promise<void>;
export type Middleware<Input, Output> = (
  input: Input,
  next: (input: Input) => Promise<Output>,
) => Output | Promise<Output>;
export type SerialHandler<Input, Value> = (input: Input, value: Value) => Value | Promise<Value>;

export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}
export function defineEmit<Payload>(name: string): EmitHook<Payload> {
  return { mode: 'emit', name };
}
export function defineWaterfall<Input, Output>(name: string): WaterfallHook<Input, Output> {
  return { mode: 'waterfall', name };
}
export function defineSerial<Input, Value>(name: string): SerialHook<Input, Value> {
  return { mode: 'serial', name };
}

/** Where a contained listener failure goes. Must not throw. */
export type ListenerErrorReporter = (report: { hook: string; error: unknown }) => void;

export interface ContextOptions {
  /** A label for diagnostics, such as the agent id. */
  name?: string;
  /** Default: one line on stderr. Child scopes inherit their parent's reporter. */
  reportListenerError?: ListenerErrorReporter;
}

type AnyFunction = (...parameters: never[]) => unknown;

/** Promises from another realm (a vm context, a worker's bridge) are not `instanceof Promise`. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function defaultReporter({ hook, error }: { hook: string; error: unknown }): void {
  process.stderr.write(`loom: a listener of ${hook} failed: ${errorMessage(error)}\n`);
}

export class Context {
  readonly name: string;
  readonly parent: Context | undefined;
  private readonly services = new Map<string, unknown>();
  /** Entries, not bare functions: one function registered twice has two independent disposers. */
  private readonly listeners = new Map<string, { listener: AnyFunction }[]>();
  private readonly reporter: ListenerErrorReporter;

  constructor(options: ContextOptions = {}, parent?: Context) {
    this.name = options.name ?? 'root';
    this.parent = parent;
    this.reporter = options.reportListenerError ?? parent?.reporter ?? defaultReporter;
  }

  /** A scope whose registrations apply to it (and its own children) only. */
  child(name: string): Context {
    return new Context({ name, reportListenerError: this.reporter }, this);
  }

  /** Claims `key` in this scope; a second claim in the same scope is an error. */
  provide<T>(key: ServiceKey<T>, service: T): Disposer {
    if (this.services.has(key.name)) {
      throw new LoomError(
        'SERVICE_TAKEN',
        `service ${key.name} is already provided in ${this.name}`,
      );
    }
    this.services.set(key.name, service);
    let disposed = false;
    return () => {
      if (disposed) return;
      disposed = true;
      if (this.services.get(key.name) === service) this.services.delete(key.name);
    };
  }

  /** The nearest provider of `key`, looking outward through parent scopes. */
  find<T>(key: ServiceKey<T>): T | undefined {
    if (this.services.has(key.name)) return this.services.get(key.name) as T;
    return this.parent?.find(key);
  }

  get<T>(key: ServiceKey<T>): T {
    const service = this.find(key);
    if (service === undefined) {
      throw new LoomError('SERVICE_MISSING', `no service ${key.name} in ${this.name}`);
    }
    return service;
  }

  /** The hook alone fixes the types (`NoInfer`), so literal results such as `{ action: 'deny' }` check. */
  on<Payload>(hook: EmitHook<Payload>, listener: NoInfer<EmitListener<Payload>>): Disposer {
    return this.register(hook.name, listener);
  }

  use<Input, Output>(
    hook: WaterfallHook<Input, Output>,
    middleware: NoInfer<Middleware<Input, Output>>,
  ): Disposer {
    return this.register(hook.name, middleware);
  }

  handle<Input, Value>(
    hook: SerialHook<Input, Value>,
    handler: NoInfer<SerialHandler<Input, Value>>,
  ): Disposer {
    return this.register(hook.name, handler);
  }

  /** Calls every listener synchronously; failures (thrown or rejected) are reported, never raised. */
  emit<Payload>(hook: EmitHook<Payload>, payload: Payload): void {
    for (const listener of this.chain(hook.name) as EmitListener<Payload>[]) {
      try {
        const returned: unknown = listener(payload);
        if (isThenable(returned)) {
          returned.then(undefined, (error: unknown) => this.report(hook.name, error));
        }
      } catch (error) {
        this.report(hook.name, error);
      }
    }
  }

  /** Whether this scope or an ancestor has a listener for `hook`. */
  hasListeners(hook: { readonly name: string }): boolean {
    if ((this.listeners.get(hook.name)?.length ?? 0) > 0) return true;
    return this.parent ? this.parent.hasListeners(hook) : false;
  }

  /** Runs the middleware chain (outermost scope first) around `terminal`. */
  run<Input, Output>(
    hook: WaterfallHook<Input, Output>,
    input: Input,
    terminal: NoInfer<(input: Input) => Output | Promise<Output>>,
  ): Promise<Output> {
    const chain = this.chain(hook.name) as Middleware<Input, Output>[];
    const dispatch = async (index: number, current: Input): Promise<Output> => {
      const middleware = chain[index];
      if (middleware === undefined) return terminal(current);
      return middleware(current, (nextInput) => dispatch(index + 1, nextInput));
    };
    return dispatch(0, input);
  }

  /** Folds `initial` through each handler in order, awaiting each. */
  async serial<Input, Value>(
    hook: SerialHook<Input, Value>,
    input: Input,
    initial: Value,
  ): Promise<Value> {
    let value = initial;
    for (const handler of this.chain(hook.name) as SerialHandler<Input, Value>[]) {
      value = await handler(input, value);
    }
    return value;
  }

  private register(name: string, listener: AnyFunction): Disposer {
    const entry = { listener };
    const list = this.listeners.get(name) ?? [];
    list.push(entry);
    this.listeners.set(name, list);
    return () => {
      const current = this.listeners.get(name);
      const index = current?.indexOf(entry) ?? -1;
      if (current && index >= 0) current.splice(index, 1);
    };
  }

  /** Ancestors' listeners first, then this scope's, each in registration order; a snapshot. */
  private chain(name: string): AnyFunction[] {
    // One array grown by push, neither mapped nor spread: every chain then has one elements
    // kind (an optimised `map` makes holey arrays), so V8 keeps `emit` and its callers optimised.
    const chain = this.parent ? this.parent.chain(name) : [];
    const own = this.listeners.get(name);
    if (own !== undefined) for (const entry of own) chain.push(entry.listener);
    return chain;
  }

  private report(hook: string, error: unknown): void {
    try {
      this.reporter({ hook, error });
    } catch {
      // A reporter that throws has nowhere left to report to; containment wins.
    }
  }
}
