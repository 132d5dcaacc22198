/**
 * The hooks a workflow script sees (`agent`, `phase`, `log`; the combinators and `workflow` live
 * next door), built outside the script's realm. Misuse throws a fatal `WorkflowError`
 * synchronously, so even a dropped call fails loud; once the run is stopped every call fails with
 * the stop error. A promise handed to the script never causes an unhandled rejection if the
 * script drops it.
 */
import {
  AGENT_OPTIONS,
  describeValue,
  isAgentOption,
  isPlainObject,
  optionValueProblem,
  unknownOptionMessage,
} from './agent-options.js';
import { WorkflowError, type WorkflowLimits } from './contract.js';
import { materializeFromRealm } from './materialize.js';
import type { AgentStartOptions } from './protocol.js';
import { withScriptFrames } from './render-thrown.js';

/** What the hooks need from the session that runs them. */
export interface HookHost {
  readonly limits: WorkflowLimits;
  /** The prototypes a value leaving the realm may have (see `realmPrototypes`). */
  readonly allowedPrototypes: ReadonlySet<object | null>;
  /** The fatal error every hook fails with once the run is cancelled or over; else undefined. */
  stopped(): WorkflowError | undefined;
  /** Rejects with the fatal CANCELLED when the run is cancelled; never resolves. */
  readonly cancellation: Promise<never>;
  /** Asks the host for a child; resolves its value, or null when it failed or was cancelled. */
  requestAgent(prompt: string, options: AgentStartOptions): Promise<unknown>;
  postPhase(title: string): void;
  postLog(message: string): void;
  /** The nested run's name (its meta name) when these hooks serve a `workflow()` call's script. */
  readonly workflowName?: string;
  /**
   * Asks the host for a saved workflow or a file; resolves its meta name and body, or rejects
   * with a fatal error (a bad target, a bad file, a stopped run, or NESTING_LIMIT).
   */
  loadWorkflow(target: string): Promise<{ name: string; script: string }>;
  /** The run's token ceiling, or null without one. */
  readonly budgetTotal: number | null;
  /** The run's spent tokens as the host last reported them. */
  budgetSpent(): number;
}

const noop = () => {};

/** Returns `promise` itself, after making sure dropping it cannot raise an unhandled rejection. */
export function handOut<T>(promise: Promise<T>): Promise<T> {
  promise.catch(noop);
  return promise;
}

/** A fatal hook error: `parallel` and `pipeline` re-throw these instead of nulling an item. */
export function isFatal(error: unknown): error is WorkflowError {
  return error instanceof WorkflowError && error.fatal;
}

/** A fatal error for the script; its stack shows the script's frames, never the engine's. */
export function fatal(code: WorkflowError['code'], message: string): WorkflowError {
  return withScriptFrames(new WorkflowError(code, message, { fatal: true }));
}

export { describeValue as describe, isPlainObject } from './agent-options.js';

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/** Checks and copies `agent()` options; throws UNSUPPORTED_OPTION or INVALID_ARGUMENT. */
export function checkAgentOptions(host: HookHost, options: unknown): AgentStartOptions {
  if (options === undefined) return {};
  if (!isPlainObject(options)) {
    throw fatal(
      'INVALID_ARGUMENT',
      `agent() options must be a plain object {${AGENT_OPTIONS.join(', ')}}, not ${describeValue(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!isAgentOption(key)) throw fatal('UNSUPPORTED_OPTION', unknownOptionMessage(key));
  }
  const checked: AgentStartOptions = {};
  for (const key of AGENT_OPTIONS) {
    const value = options[key];
    if (value === undefined || key === 'schema') continue;
    const problem = optionValueProblem(key, value);
    if (problem !== undefined) throw fatal('INVALID_ARGUMENT', problem);
    (checked as Record<string, unknown>)[key] = value;
  }
  if (options.schema !== undefined) checked.schema = checkSchema(host, options.schema);
  return checked;
}

function checkSchema(host: HookHost, schema: unknown): Record<string, unknown> {
  if (!isPlainObject(schema)) {
    throw fatal(
      'INVALID_ARGUMENT',
      `agent() option schema must be a JSON Schema object, not ${describeValue(schema)}`,
    );
  }
  return materializeFromRealm(schema, {
    label: 'agent() option schema',
    allowedPrototypes: host.allowedPrototypes,
  }) as Record<string, unknown>;
}

export function createAgentHook(host: HookHost) {
  return function agent(prompt: unknown, options?: unknown): Promise<unknown> {
    const stopped = host.stopped();
    if (stopped) return handOut(Promise.reject(stopped));
    if (!nonEmptyString(prompt)) {
      throw fatal(
        'INVALID_ARGUMENT',
        `agent() prompt must be a non-empty string, not ${describeValue(prompt)}`,
      );
    }
    const checked = checkAgentOptions(host, options);
    return handOut(host.requestAgent(prompt, checked));
  };
}

export function createPhaseHook(host: HookHost) {
  return function phase(title: unknown): void {
    const stopped = host.stopped();
    if (stopped) throw stopped;
    if (!nonEmptyString(title)) {
      throw fatal(
        'INVALID_ARGUMENT',
        `phase() title must be a non-empty string, not ${describeValue(title)}`,
      );
    }
    host.postPhase(title);
  };
}

export function createLogHook(host: HookHost) {
  return function log(message: unknown): void {
    const stopped = host.stopped();
    if (stopped) throw stopped;
    if (typeof message !== 'string') {
      throw fatal(
        'INVALID_ARGUMENT',
        `log() message must be a string, not ${describeValue(message)}`,
      );
    }
    host.postLog(message);
  };
}
