/**
 * One tool call's path through the pipeline stages: lookup, argument validation, the
 * `tools/pre-execute` decision (allow / deny / ask), guards (deny only, after the whole
 * waterfall), `tools/execute` around the timed body, `tools/post-execute`, normalisation, and
 * the `tools/result` observation. Running a call never rejects: every throw, at any stage,
 * becomes an error result the model sees. Scheduling several calls is `tool-pipeline.ts`'s job.
 */

import { errorMessage, LoomError, type LoomErrorCode } from '../base/errors.js';
import type { ImageReference, ModelToolCall } from '../llm/contract.js';
import { agentAsksUser } from './agent-hooks.js';
import { type Context, defineEmit, defineWaterfall, serviceKey } from './context.js';
import { validateToolArguments } from './tool-arguments.js';
import type { ToolDefinition, ToolExecution, ToolResult } from './tool-contract.js';

export interface ToolCallRequest {
  callId: string;
  name: string;
  /**
   * Validated arguments. A pre-execute listener that passes a rewritten request to `next` changes
   * what guards see and what runs; it then owns the rewritten arguments' validity.
   */
  arguments: unknown;
  agentId: string;
  turnId: string;
  tool: ToolDefinition;
  /**
   * The call's signal, aborted when the call is cancelled; a listener that starts work (a
   * project's hook) stops it then. Absent where nothing runs here (a remote agent's call).
   */
  signal?: AbortSignal;
}

export type PreExecuteDecision =
  | { action: 'allow' }
  | { action: 'deny'; reason: string }
  | { action: 'ask'; reason: string };

export type GuardVerdict = undefined | { deny: string };

/** Can only deny. Runs after the whole pre-execute waterfall; a throw denies the call too. */
export type ToolGuard = (request: ToolCallRequest) => GuardVerdict | Promise<GuardVerdict>;

/** `true` approves; a refusal may carry the human's words for the model. */
export type PermissionAnswer = boolean | { approved: false; feedback: string };

export interface PermissionAsker {
  /** Resolves true to approve. Should settle promptly once `signal` aborts. */
  ask(request: {
    call: ToolCallRequest;
    reason: string;
    signal: AbortSignal;
  }): Promise<PermissionAnswer>;
}

export interface ToolObservation {
  execution: ToolExecution;
  result: ToolResult;
}

/** Decides whether a validated call may run. Terminal: allow. */
export const toolPreExecute = defineWaterfall<ToolCallRequest, PreExecuteDecision>(
  'tools/pre-execute',
);
/** Wraps the body; the terminal runs it under the call's time limit. */
export const toolExecute = defineWaterfall<ToolExecution, ToolResult>('tools/execute');
/** Rewrites a result after the body. Terminal: the result unchanged. */
export const toolPostExecute = defineWaterfall<ToolObservation, ToolResult>('tools/post-execute');
/**
 * Observes the final result of every call, once, synchronously, including unknown, invalid and
 * denied calls (whose `execution.arguments` is then the raw value the model sent).
 */
export const toolResultObserved = defineEmit<ToolObservation>('tools/result');

/** What a running call says of its progress (every field optional: a message alone is fine). */
export interface ToolProgress {
  execution: ToolExecution;
  /** Grows with each report; `total`, when known, is where it ends. */
  progress?: number;
  total?: number;
  message?: string;
}

/**
 * A running call's progress, emitted by the tool on `execution.context` (an MCP server's
 * progress notifications, a task's status). The turn logs each as `tool/progress`, which front
 * ends show on the call's line. A tool must not emit it after its call ended.
 */
export const toolProgressReported = defineEmit<ToolProgress>('tools/progress');

/** A call's progress as a few words: `3/5 Analyzing content…`, `40%`, or the message alone. */
export function progressText(progress: {
  progress?: number;
  total?: number;
  message?: string;
}): string {
  const count =
    progress.progress === undefined
      ? ''
      : progress.total !== undefined
        ? `${progress.progress}/${progress.total}`
        : String(progress.progress);
  const message = progress.message?.trim().slice(0, 60) ?? '';
  return [count, message].filter((part) => part !== '').join(' ') || 'working';
}

export const permissionAskerKey = serviceKey<PermissionAsker>('permissions/asker');

export interface ToolCallEnvironment {
  call: ModelToolCall;
  context: Context;
  agentId: string;
  turnId: string;
  /** The step's signal; the call links its own controller to it. */
  signal: AbortSignal;
  concludeTurn: () => void;
  lookup(name: string): ToolDefinition | undefined;
  availableNames(): string[];
  guards(): ToolGuard[];
  defaultTimeoutMs: number;
  /** The enclosing call of a call made inside another (Code Mode); absent for a model's call. */
  parent?: { callId: string; token: object };
}

const ABORTED: unique symbol = Symbol('aborted');

/** What admission decides: the call runs with this request, or it stops with this result. */
type Admission =
  | { kind: 'admitted'; request: ToolCallRequest }
  | { kind: 'stopped'; result: ToolResult };

function stopped(result: ToolResult): Admission {
  return { kind: 'stopped', result };
}

export async function runToolCall(environment: ToolCallEnvironment): Promise<ToolResult> {
  return new ToolCall(environment).run();
}

class ToolCall {
  private readonly call: ModelToolCall;
  private readonly controller = new AbortController();
  private execution: ToolExecution;
  /** Where the call is, for the message of a cancellation that cuts a stage short. */
  private phase: 'before it ran' | 'while waiting for approval' | 'while it ran' = 'before it ran';
  /** The abort reason of this call's time limit, once the body has started. */
  private timeout: LoomError | undefined;

  constructor(private readonly environment: ToolCallEnvironment) {
    this.call = environment.call;
    const { context, agentId, turnId, concludeTurn, parent } = environment;
    this.execution = Object.freeze({
      callId: this.call.id,
      name: this.call.name,
      arguments: this.call.arguments,
      signal: this.controller.signal,
      context,
      agentId,
      turnId,
      concludeTurn,
      token: Object.freeze(Object.create(null) as object),
      ...(parent ? { parentToken: parent.token } : {}),
    });
  }

  async run(): Promise<ToolResult> {
    const unlink = linkAbort(this.environment.signal, this.controller);
    let result: ToolResult;
    try {
      // Every stage (hooks included) is raced against the signal: a stage that ignores it
      // cannot keep a cancelled turn from ending.
      const outcome = await raceAbort(this.controller.signal, this.stages());
      result = outcome === ABORTED ? this.stopped() : outcome;
    } catch (error) {
      result = failed(this.call, error);
    } finally {
      unlink();
    }
    this.environment.context.emit(toolResultObserved, { execution: this.execution, result });
    return result;
  }

  /** The result of a call whose signal aborted: its time limit, or a cancellation. */
  private stopped(): ToolResult {
    const reason: unknown = this.controller.signal.reason;
    if (this.timeout !== undefined && reason === this.timeout) {
      return errorResult(
        this.call,
        `Tool ${this.timeout.message} and was stopped.`,
        'TOOL_TIMEOUT',
      );
    }
    return cancelled(this.call, this.phase);
  }

  private async stages(): Promise<ToolResult> {
    const { call, environment } = this;
    if (this.controller.signal.aborted) return cancelled(call, 'before it ran');
    const tool = environment.lookup(call.name);
    if (!tool) return unknownTool(call, environment.availableNames());
    const check = validateToolArguments(tool, call.arguments);
    if (!check.ok) return invalidArguments(call, check.problems);
    const admission = await this.admit({
      callId: call.id,
      name: call.name,
      arguments: check.value,
      agentId: environment.agentId,
      turnId: environment.turnId,
      tool,
      signal: this.controller.signal,
    });
    if (admission.kind === 'stopped') return admission.result;
    const admitted = admission.request.arguments;
    if (admitted !== this.execution.arguments) {
      this.execution = Object.freeze({ ...this.execution, arguments: admitted });
    }
    if (this.controller.signal.aborted) return cancelled(call, 'before it ran');
    const executed = await stage('tools/execute', () =>
      environment.context.run(toolExecute, this.execution, (execution) =>
        this.body(tool, execution),
      ),
    );
    const posted = await stage('tools/post-execute', () =>
      environment.context.run(
        toolPostExecute,
        { execution: this.execution, result: normaliseResult(call, executed) },
        ({ result }) => result,
      ),
    );
    return normaliseResult(call, posted);
  }

  /** The admitted request, or the error result that stops the call. */
  private async admit(request: ToolCallRequest): Promise<Admission> {
    const { context } = this.environment;
    let admitted = request;
    const decision: unknown = await stage('tools/pre-execute', () =>
      context.run(toolPreExecute, request, (reached) => {
        admitted = reached;
        return { action: 'allow' };
      }),
    );
    const verdict = decision as Partial<PreExecuteDecision> | undefined;
    switch (verdict?.action) {
      case 'allow':
        break;
      case 'deny':
        return stopped(denied(this.call, `${this.call.name} was denied: ${reasonOf(verdict)}`));
      case 'ask': {
        const refusal = await this.ask(admitted, reasonOf(verdict));
        if (refusal) return stopped(refusal);
        break;
      }
      default:
        throw new Error(`tools/pre-execute produced ${render(decision)}, not a decision`);
    }
    for (const guard of this.environment.guards()) {
      const outcome: unknown = await stage('guard', () => guard(admitted));
      if (outcome === undefined) continue;
      const reason = (outcome as { deny?: unknown }).deny;
      if (typeof reason !== 'string') throw new Error(`a guard returned ${render(outcome)}`);
      const message = `${this.call.name} was denied: ${reason || 'blocked by a guard'}`;
      return stopped(denied(this.call, message));
    }
    return { kind: 'admitted', request: admitted };
  }

  private async ask(request: ToolCallRequest, reason: string): Promise<ToolResult | undefined> {
    const name = this.call.name;
    const asker = this.environment.context.find(permissionAskerKey);
    if (!asker) {
      return denied(
        this.call,
        `${name} requires approval (${reason}), but nobody is available to approve it in this ` +
          'session, so the call was denied.',
      );
    }
    const signal = this.controller.signal;
    this.phase = 'while waiting for approval';
    this.environment.context.emit(agentAsksUser, {
      agentId: request.agentId,
      kind: 'approval',
      message: `${name} needs approval: ${reason}`,
    });
    const answer = await stage('permission ask', () =>
      raceAbort(signal, Promise.resolve(asker.ask({ call: request, reason, signal }))),
    );
    if (answer === ABORTED) return cancelled(this.call, 'while waiting for approval');
    this.phase = 'before it ran';
    if (answer === true) return undefined;
    const feedback = typeof answer === 'object' ? answer.feedback.trim() : '';
    return denied(
      this.call,
      `${name} was not approved (${reason}).${feedback ? ` The user said: ${feedback}` : ''}`,
    );
  }

  /** The terminal of `tools/execute`: the tool's own code under the time limit. */
  private async body(tool: ToolDefinition, execution: ToolExecution): Promise<ToolResult> {
    this.execution = execution;
    const signal = this.controller.signal;
    if (signal.aborted) return cancelled(this.call, 'before it ran');
    this.phase = 'while it ran';
    const limitMs = tool.timeoutMs ?? this.environment.defaultTimeoutMs;
    const timeout = new LoomError('TOOL_TIMEOUT', `${tool.name} timed out after ${limitMs} ms`);
    this.timeout = timeout;
    const timer = setTimeout(() => this.controller.abort(timeout), limitMs);
    try {
      const work = Promise.resolve().then(() => tool.execute(execution.arguments, execution));
      const output = await raceAbort(signal, work);
      if (output !== ABORTED) return fromOutput(this.call, output);
      if (signal.reason === timeout) {
        return errorResult(this.call, `Tool ${timeout.message} and was stopped.`, 'TOOL_TIMEOUT');
      }
      return cancelled(this.call, 'while it ran');
    } catch (error) {
      return failed(this.call, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Runs one hook stage, labelling anything it throws with the stage's name. */
async function stage<T>(label: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StageFailure) throw error;
    throw new StageFailure(label, error);
  }
}

class StageFailure extends Error {
  constructor(
    readonly stage: string,
    readonly original: unknown,
  ) {
    super(`${stage} failed: ${errorMessage(original)}`, { cause: original });
  }
}

function linkAbort(signal: AbortSignal, controller: AbortController): () => void {
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  const forward = () => controller.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  return () => signal.removeEventListener('abort', forward);
}

function raceAbort<T>(signal: AbortSignal, work: Promise<T>): Promise<T | typeof ABORTED> {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function errorResult(call: ModelToolCall, content: string, errorCode?: LoomErrorCode): ToolResult {
  const result: ToolResult = { callId: call.id, name: call.name, content, isError: true };
  if (errorCode !== undefined) result.errorCode = errorCode;
  return result;
}

function failed(call: ModelToolCall, error: unknown): ToolResult {
  const cause = error instanceof StageFailure ? error.original : error;
  const code = cause instanceof LoomError ? cause.code : undefined;
  const message = errorMessage(error) || `${call.name} failed`;
  return errorResult(call, message, code);
}

function cancelled(call: ModelToolCall, when: string): ToolResult {
  return errorResult(call, `cancelled: ${call.name} was stopped ${when}.`, 'ABORTED');
}

function denied(call: ModelToolCall, message: string): ToolResult {
  return errorResult(call, message, 'TOOL_DENIED');
}

function unknownTool(call: ModelToolCall, available: string[]): ToolResult {
  const list = available.length > 0 ? available.join(', ') : 'none';
  return errorResult(
    call,
    `Unknown tool ${JSON.stringify(call.name)}. Available tools: ${list}.`,
    'UNKNOWN_TOOL',
  );
}

function invalidArguments(call: ModelToolCall, problems: string[]): ToolResult {
  const lines = problems.map((problem) => `- ${problem}`).join('\n');
  const content = `Invalid arguments for ${call.name}:\n${lines}\nFix the arguments and call the tool again.`;
  return errorResult(call, content, 'TOOL_ARGUMENTS');
}

/** A tool's own output as a result; a non-string content is a fault of the tool. */
function fromOutput(call: ModelToolCall, output: unknown): ToolResult {
  if (typeof output === 'string') {
    return { callId: call.id, name: call.name, content: output, isError: false };
  }
  if (typeof output === 'object' && output !== null) {
    const { isError = false } = output as { isError?: unknown };
    return normaliseResult(call, { ...output, isError });
  }
  return normaliseResult(call, output);
}

/** The authoritative, JSON-safe shape of a result; throws on anything else. */
function normaliseResult(call: ModelToolCall, value: unknown): ToolResult {
  if (typeof value !== 'object' || value === null) {
    throw new Error(`${call.name} produced ${render(value)} instead of a result`);
  }
  const { content, isError, errorCode, metadata, details, images } = value as Partial<ToolResult>;
  if (typeof content !== 'string') {
    throw new Error(`${call.name} produced a result whose content is ${render(content)}, not text`);
  }
  if (typeof isError !== 'boolean') {
    throw new Error(`${call.name} produced a result whose isError is ${render(isError)}`);
  }
  const result: ToolResult = { callId: call.id, name: call.name, content, isError };
  if (typeof errorCode === 'string') result.errorCode = errorCode;
  if (metadata !== undefined) result.metadata = jsonCopy(call, metadata);
  if (details !== undefined) result.details = jsonCopy(call, details);
  if (images !== undefined && images.length > 0) result.images = imageCopies(call, images);
  return result;
}

const BLOB_HASH = /^[0-9a-f]{64}$/;

/** The references exactly as the log keeps them; anything else is a fault of the tool. */
function imageCopies(call: ModelToolCall, images: unknown): ImageReference[] {
  if (!Array.isArray(images)) throw new Error(`${call.name} produced images that are not a list`);
  return images.map((image: Partial<ImageReference>) => {
    const valid =
      typeof image === 'object' &&
      image !== null &&
      image.type === 'image' &&
      typeof image.mediaType === 'string' &&
      typeof image.blob === 'string' &&
      BLOB_HASH.test(image.blob) &&
      typeof image.bytes === 'number';
    if (!valid) {
      throw new Error(
        `${call.name} produced an image that is not a blob reference: ${render(image)}`,
      );
    }
    const copy: ImageReference = {
      type: 'image',
      mediaType: image.mediaType as string,
      blob: image.blob as string,
      bytes: image.bytes as number,
    };
    if (typeof image.width === 'number') copy.width = image.width;
    if (typeof image.height === 'number') copy.height = image.height;
    return copy;
  });
}

function jsonCopy(call: ModelToolCall, metadata: unknown): Record<string, unknown> {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(metadata));
  } catch (error) {
    throw new Error(`${call.name} produced metadata that is not JSON: ${errorMessage(error)}`);
  }
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) {
    throw new Error(`${call.name} produced metadata that is not an object`);
  }
  return copy as Record<string, unknown>;
}

function reasonOf(decision: { reason?: unknown }): string {
  return typeof decision.reason === 'string' && decision.reason !== ''
    ? decision.reason
    : 'no reason given';
}

function render(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
