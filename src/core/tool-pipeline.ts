/**
 * The tool registry of one scope (one per agent, children shadow parents) and the scheduler of
 * one model step's calls: consecutive concurrency-safe calls run together, any other call runs
 * alone, and results are handed over in model order. Visibility (`restrict`) is not permission:
 * only `tools/pre-execute` and guards decide whether a visible tool may run. Executing a step
 * must never reject because of a tool; each call's stages live in `tool-execution.ts`.
 */

import { UserError } from '../base/errors.js';
import type { ModelToolCall, ModelToolSpec } from '../llm/contract.js';
import { type Context, type Disposer, serviceKey } from './context.js';
import type { ToolDefinition, ToolResult } from './tool-contract.js';
import { runToolCall, type ToolGuard } from './tool-execution.js';

export {
  type GuardVerdict,
  type PermissionAsker,
  type PreExecuteDecision,
  permissionAskerKey,
  type ToolCallRequest,
  type ToolGuard,
  type ToolObservation,
  toolExecute,
  toolPostExecute,
  toolPreExecute,
  toolResultObserved,
} from './tool-execution.js';

export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
export const toolPipelineKey = serviceKey<ToolPipeline>('tools/pipeline');

/** What providers accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ToolPipelineOptions {
  /** The scope whose hooks and services every call of this pipeline uses. */
  context: Context;
  parent?: ToolPipeline;
  /**
   * Whether a name the parent has may be registered here, shadowing it (default true); false
   * makes it DUPLICATE_TOOL, as in one scope (an agent below the tools its runtime shares).
   */
  shadows?: boolean;
  /** Time limit for a tool without its own `timeoutMs`. Default: the parent's, else 120000. */
  defaultTimeoutMs?: number;
}

export interface ExecuteStepOptions {
  calls: ModelToolCall[];
  agentId: string;
  turnId: string;
  /** Cancels the step: unstarted calls become `ABORTED` results, running ones see their signal abort. */
  signal: AbortSignal;
  concludeTurn: () => void;
  /**
   * Receives each result in model order, as soon as it and every earlier one are done. If it
   * throws, no further call starts and `executeStep` rejects with that error once running calls end.
   */
  onResult?: (result: ToolResult, index: number) => void;
}

/** One call made inside another call (Code Mode's `run_code`), outside any model step's plan. */
export interface InnerCallOptions {
  call: ModelToolCall;
  agentId: string;
  turnId: string;
  /** The enclosing call's signal (or one derived from it): aborting it stops the inner call. */
  signal: AbortSignal;
  concludeTurn: () => void;
  /** The enclosing call: its id, and the `token` of its execution. */
  parent: { callId: string; token: object };
}

interface PlannedCall {
  call: ModelToolCall;
  index: number;
}

export class ToolPipeline {
  readonly context: Context;
  readonly parent: ToolPipeline | undefined;
  readonly defaultTimeoutMs: number;
  private readonly shadows: boolean;
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly restrictions: ReadonlySet<string>[] = [];
  private readonly guards: { guard: ToolGuard }[] = [];

  constructor(options: ToolPipelineOptions) {
    this.context = options.context;
    this.parent = options.parent;
    this.shadows = options.shadows ?? true;
    const timeout = options.defaultTimeoutMs ?? options.parent?.defaultTimeoutMs;
    this.defaultTimeoutMs = timeout ?? DEFAULT_TOOL_TIMEOUT_MS;
    if (!isPositiveTime(this.defaultTimeoutMs)) {
      throw new UserError(
        'INVALID_CONFIG',
        `defaultTimeoutMs must be a positive number of milliseconds, got ${String(timeout)}`,
      );
    }
  }

  /** A scope that inherits this one's tools, restrictions and guards, and may shadow tools. */
  child(context: Context): ToolPipeline {
    return new ToolPipeline({ context, parent: this });
  }

  register(tool: ToolDefinition): Disposer {
    checkDefinition(tool);
    this.refuseTaken(tool.name);
    this.tools.set(tool.name, tool);
    return () => {
      if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name);
    };
  }

  /**
   * `register` for each of `tools`, in order, all or none: a bad definition or a name taken (here
   * or earlier in `tools`) throws before any is registered. One disposer takes back those still
   * registered; for a layer's tools, given in one step.
   */
  registerAll(tools: readonly ToolDefinition[]): Disposer {
    const names = new Set<string>();
    for (const tool of tools) {
      checkDefinition(tool);
      if (names.has(tool.name)) throw duplicateTool(tool.name, this.context.name);
      this.refuseTaken(tool.name);
      names.add(tool.name);
    }
    for (const tool of tools) this.tools.set(tool.name, tool);
    return () => {
      for (const tool of tools) {
        if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name);
      }
    };
  }

  /** Hides `names` from this scope and its children (by name, whichever scope registered them). */
  restrict(names: string[]): Disposer {
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
      throw new UserError('INVALID_ARGUMENT', 'restrict() takes an array of tool names');
    }
    const hidden: ReadonlySet<string> = new Set(names);
    this.restrictions.push(hidden);
    return () => removeItem(this.restrictions, hidden);
  }

  /** Guards of a parent scope apply to its children too; they run parent first. */
  guard(guard: ToolGuard): Disposer {
    const entry = { guard };
    this.guards.push(entry);
    return () => removeItem(this.guards, entry);
  }

  lookup(name: string): ToolDefinition | undefined {
    return this.isHidden(name) ? undefined : this.find(name);
  }

  /** The parent's tools then this scope's, each name once (own shadows inherited), minus hidden. */
  visible(): ToolDefinition[] {
    return this.collect().filter((tool) => !this.isHidden(tool.name));
  }

  specs(): ModelToolSpec[] {
    return this.visible().map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    }));
  }

  async executeStep(options: ExecuteStepOptions): Promise<ToolResult[]> {
    const { calls, onResult } = options;
    const results: (ToolResult | undefined)[] = calls.map(() => undefined);
    let delivered = 0;
    let deliveryFailure: { error: unknown } | undefined;
    const settle = (index: number, result: ToolResult) => {
      results[index] = result;
      for (let next = results[delivered]; next !== undefined; next = results[delivered]) {
        if (deliveryFailure) return;
        try {
          onResult?.(next, delivered);
        } catch (error) {
          deliveryFailure = { error };
        }
        delivered += 1;
      }
    };
    for (const batch of this.plan(calls)) {
      if (deliveryFailure) break;
      await Promise.all(
        batch.map(({ call, index }) =>
          this.runCall(call, options).then((result) => settle(index, result)),
        ),
      );
    }
    if (deliveryFailure) throw deliveryFailure.error;
    return results as ToolResult[];
  }

  /**
   * Runs one call made inside another through the whole pipeline (lookup, validation,
   * pre-execute, guards, execute, post-execute, normalisation, `tools/result`), exactly as a
   * model's call. Never rejects. Scheduling and logging it are the caller's job.
   */
  runInnerCall(options: InnerCallOptions): Promise<ToolResult> {
    const { call, parent, ...step } = options;
    return runToolCall({
      call,
      context: this.context,
      agentId: step.agentId,
      turnId: step.turnId,
      signal: step.signal,
      concludeTurn: step.concludeTurn,
      lookup: (name) => this.lookup(name),
      availableNames: () => this.visible().map((tool) => tool.name),
      guards: () => this.activeGuards(),
      defaultTimeoutMs: this.defaultTimeoutMs,
      parent,
    });
  }

  private runCall(call: ModelToolCall, options: ExecuteStepOptions): Promise<ToolResult> {
    return runToolCall({
      call,
      context: this.context,
      agentId: options.agentId,
      turnId: options.turnId,
      signal: options.signal,
      concludeTurn: options.concludeTurn,
      lookup: (name) => this.lookup(name),
      availableNames: () => this.visible().map((tool) => tool.name),
      guards: () => this.activeGuards(),
      defaultTimeoutMs: this.defaultTimeoutMs,
    });
  }

  /** Consecutive concurrency-safe calls share a batch; every other call is a batch of its own. */
  private plan(calls: ModelToolCall[]): PlannedCall[][] {
    const batches: PlannedCall[][] = [];
    let openBatch: PlannedCall[] | undefined;
    calls.forEach((call, index) => {
      const safe = this.lookup(call.name)?.concurrencySafe === true;
      if (safe && openBatch) {
        openBatch.push({ call, index });
        return;
      }
      const batch = [{ call, index }];
      batches.push(batch);
      openBatch = safe ? batch : undefined;
    });
    return batches;
  }

  /** DUPLICATE_TOOL when `name` is registered here, or above where it may not be shadowed. */
  private refuseTaken(name: string): void {
    if (this.tools.has(name)) throw duplicateTool(name, this.context.name);
    const above = this.shadows ? undefined : this.parent;
    if (above?.find(name)) throw duplicateTool(name, above.context.name);
  }

  private find(name: string): ToolDefinition | undefined {
    return this.tools.get(name) ?? this.parent?.find(name);
  }

  private isHidden(name: string): boolean {
    return this.restrictions.some((hidden) => hidden.has(name)) || !!this.parent?.isHidden(name);
  }

  private collect(): ToolDefinition[] {
    const inherited = this.parent?.collect() ?? [];
    return [...inherited.filter((tool) => !this.tools.has(tool.name)), ...this.tools.values()];
  }

  private activeGuards(): ToolGuard[] {
    const own = this.guards.map((entry) => entry.guard);
    return this.parent ? [...this.parent.activeGuards(), ...own] : own;
  }
}

function duplicateTool(name: string, scope: string): UserError {
  return new UserError('DUPLICATE_TOOL', `tool ${name} is already registered in ${scope}`);
}

function checkDefinition(tool: ToolDefinition): void {
  const problem = definitionProblem(tool);
  if (problem) {
    const label = typeof tool?.name === 'string' ? `tool ${tool.name}` : 'a tool';
    throw new UserError('INVALID_ARGUMENT', `${label} cannot be registered: ${problem}`);
  }
}

function definitionProblem(tool: ToolDefinition): string | undefined {
  if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name)) {
    return 'name must be 1-64 letters, digits, "_" or "-"';
  }
  // A description given by a getter is the tool's to make when it is needed (the workflow tool
  // lists saved workflows): reading it here would make it at registration instead.
  const lazy = Object.getOwnPropertyDescriptor(tool, 'description')?.get !== undefined;
  if (!lazy && typeof tool.description !== 'string') return 'description must be a string';
  const parameters: unknown = tool.parameters;
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    return 'parameters must be a JSON Schema object';
  }
  if (typeof tool.execute !== 'function') return 'execute must be a function';
  if (tool.timeoutMs !== undefined && !isPositiveTime(tool.timeoutMs)) {
    return 'timeoutMs must be a positive number of milliseconds';
  }
  return undefined;
}

/** Timers cannot wait longer than a signed 32-bit count of milliseconds. */
const LONGEST_TIMER_MS = 2_147_483_647;

function isPositiveTime(value: unknown): boolean {
  return typeof value === 'number' && value > 0 && value <= LONGEST_TIMER_MS;
}

function removeItem<T>(list: T[], item: T): void {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
}
