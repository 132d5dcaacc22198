/**
 * Checks every message from the workflow worker before the host acts on it: a known tag, exactly
 * the payload shape that tag names, and only JSON values inside. A script can reach the worker's
 * port (see README.md), so the host trusts nothing it did not check here. It never throws and
 * never reads a value in a way that runs script code (structured clones carry no getters).
 */
import { assertNever } from '../base/errors.js';
import { EFFORT_LEVELS, ISOLATION_WORKTREE, isEffort } from './agent-options.js';
import type { WorkflowErrorCode } from './contract.js';
import { DEFAULT_MAXIMUM_DEPTH } from './materialize.js';
import { type WorkerEnvelope, WorkerMessage } from './protocol.js';

/** The longest delay a timer holds (2^31 - 1 ms); the agent option `timeoutMs` is checked against it. */
const MAX_TIMER_MS = 2_147_483_647;

/** A checked message, or the reason it is not one (a protocol fault). */
export type WorkerReading = { message: WorkerEnvelope } | { fault: string };

const errorCodes: Record<WorkflowErrorCode, true> = {
  SCRIPT_PARSE: true,
  META_INVALID: true,
  INVALID_ARGUMENT: true,
  UNSUPPORTED_OPTION: true,
  UNSUPPORTED_SCHEMA: true,
  AGENT_CAP: true,
  ITEM_CAP: true,
  AGENT_START: true,
  RESULT_UNSERIALIZABLE: true,
  CANCELLED: true,
  NESTING_LIMIT: true,
  BUDGET_EXHAUSTED: true,
  SCRIPT_MEMORY: true,
  RESULT_TOO_LARGE: true,
  RUN_TIMEOUT: true,
};

const workerTags = new Set<string>(Object.values(WorkerMessage));

/** Thrown inside this module only, to unwind a check; never escapes it. */
class Malformed {
  constructor(readonly problem: string) {}
}

function malformed(problem: string): never {
  throw new Malformed(problem);
}

/** The message as a worker envelope whose payload matches its tag, or the fault. */
export function readWorkerMessage(raw: unknown): WorkerReading {
  if (!isPlainRecord(raw)) return { fault: `a message that is ${kind(raw)}, not an object` };
  const tag = raw.tag;
  if (typeof tag !== 'string' || !workerTags.has(tag)) {
    const named = typeof tag === 'string' ? JSON.stringify(tag.slice(0, 40)) : kind(tag);
    return { fault: `a message with an unknown tag ${named}` };
  }
  try {
    onlyKeys(raw, 'message', ['tag', 'payload'], ['tag', 'payload']);
    checkPayload(tag as WorkerMessage, raw.payload);
  } catch (error) {
    if (error instanceof Malformed)
      return { fault: `a malformed ${tag} message: ${error.problem}` };
    return { fault: `a malformed ${tag} message` };
  }
  return { message: raw as unknown as WorkerEnvelope };
}

function checkPayload(tag: WorkerMessage, payload: unknown): void {
  switch (tag) {
    case WorkerMessage.Ready:
    case WorkerMessage.Started:
      onlyKeys(payload, 'payload', [], []);
      return;
    case WorkerMessage.AgentStart: {
      const start = onlyKeys(
        payload,
        'payload',
        ['call', 'prompt', 'options', 'workflow'],
        ['call', 'prompt', 'options'],
      );
      positiveInteger(start.call, 'payload.call');
      text(start.prompt, 'payload.prompt', false);
      optionalText(start.workflow, 'payload.workflow');
      const options = onlyKeys(
        start.options,
        'payload.options',
        ['label', 'phase', 'schema', 'model', 'timeoutMs', 'effort', 'isolation', 'agentType'],
        [],
      );
      for (const key of ['label', 'phase', 'model', 'agentType'] as const) {
        if (options[key] !== undefined) text(options[key], `payload.options.${key}`, false);
      }
      if (options.effort !== undefined && !isEffort(options.effort)) {
        malformed(`payload.options.effort must be one of ${EFFORT_LEVELS.join(', ')}`);
      }
      if (options.isolation !== undefined && options.isolation !== ISOLATION_WORKTREE) {
        malformed(`payload.options.isolation must be ${JSON.stringify(ISOLATION_WORKTREE)}`);
      }
      if (options.timeoutMs !== undefined) {
        positiveInteger(options.timeoutMs, 'payload.options.timeoutMs');
        if ((options.timeoutMs as number) > MAX_TIMER_MS) {
          malformed(`payload.options.timeoutMs must be at most ${MAX_TIMER_MS}`);
        }
      }
      if (options.schema !== undefined) {
        if (!isPlainRecord(options.schema)) {
          malformed(`payload.options.schema must be an object, not ${kind(options.schema)}`);
        }
        jsonValue(options.schema, 'payload.options.schema', 0, new Set());
      }
      return;
    }
    case WorkerMessage.Phase: {
      const phase = onlyKeys(payload, 'payload', ['title', 'workflow'], ['title']);
      text(phase.title, 'payload.title', false);
      optionalText(phase.workflow, 'payload.workflow');
      return;
    }
    case WorkerMessage.Log: {
      const log = onlyKeys(payload, 'payload', ['message', 'workflow'], ['message']);
      text(log.message, 'payload.message', true);
      optionalText(log.workflow, 'payload.workflow');
      return;
    }
    case WorkerMessage.Done:
      checkDone(payload);
      return;
    case WorkerMessage.WorkflowLoad: {
      const load = onlyKeys(payload, 'payload', ['load', 'target'], ['load', 'target']);
      positiveInteger(load.load, 'payload.load');
      text(load.target, 'payload.target', false);
      return;
    }
    default:
      assertNever(tag, 'worker message tag');
  }
}

function checkDone(payload: unknown): void {
  if (!isPlainRecord(payload)) malformed(`the payload must be an object, not ${kind(payload)}`);
  if (payload.kind === 'ok') {
    onlyKeys(payload, 'payload', ['kind', 'value'], ['kind', 'value']);
    jsonValue(payload.value, 'payload.value', 0, new Set());
    return;
  }
  if (payload.kind !== 'error') {
    malformed(`payload.kind must be "ok" or "error", not ${kind(payload.kind)}`);
  }
  const error = onlyKeys(
    payload,
    'payload',
    ['kind', 'code', 'message', 'fatal'],
    ['kind', 'message', 'fatal'],
  );
  if (
    error.code !== undefined &&
    !(typeof error.code === 'string' && Object.hasOwn(errorCodes, error.code))
  ) {
    const named =
      typeof error.code === 'string' ? JSON.stringify(error.code.slice(0, 40)) : kind(error.code);
    malformed(`payload.code is not a workflow error code: ${named}`);
  }
  text(error.message, 'payload.message', true);
  if (typeof error.fatal !== 'boolean') {
    malformed(`payload.fatal must be a boolean, not ${kind(error.fatal)}`);
  }
}

/** An object of this realm's plain shape (what a structured clone of a plain object is). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

function onlyKeys(
  value: unknown,
  path: string,
  allowed: readonly string[],
  required: readonly string[],
): Record<string, unknown> {
  if (!isPlainRecord(value)) malformed(`${path} must be an object, not ${kind(value)}`);
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) malformed(`${path} has an unknown key ${JSON.stringify(extra)}`);
  const missing = required.find((key) => !Object.hasOwn(value, key));
  if (missing !== undefined) malformed(`${path}.${missing} is missing`);
  return value;
}

function text(value: unknown, path: string, emptyAllowed: boolean): void {
  if (typeof value !== 'string') malformed(`${path} must be a string, not ${kind(value)}`);
  if (!emptyAllowed && value.trim().length === 0) malformed(`${path} must not be empty`);
}

function optionalText(value: unknown, path: string): void {
  if (value !== undefined) text(value, path, false);
}

function positiveInteger(value: unknown, path: string): void {
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    malformed(`${path} must be a positive integer, not ${kind(value)}`);
  }
}

/** Plain objects, dense arrays, strings, finite numbers, booleans and null; no cycles. */
function jsonValue(value: unknown, path: string, depth: number, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) malformed(`${path} is ${value}, which JSON cannot carry`);
      return;
    case 'object':
      if (value === null) return;
      break;
    default:
      malformed(`${path} is ${kind(value)}, which JSON cannot carry`);
  }
  if (ancestors.has(value)) malformed(`${path} is a cycle, which JSON cannot carry`);
  if (depth >= DEFAULT_MAXIMUM_DEPTH) {
    malformed(`${path} nests deeper than ${DEFAULT_MAXIMUM_DEPTH} levels`);
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) malformed(`${path} is not a plain array`);
    if (Object.keys(value).length !== value.length) {
      malformed(`${path} is an array with holes or named properties, which JSON cannot carry`);
    }
    for (let index = 0; index < value.length; index += 1) {
      if (!Object.hasOwn(value, index)) malformed(`${path}[${index}] is a hole in an array`);
      jsonValue(value[index], `${path}[${index}]`, depth + 1, ancestors);
    }
  } else {
    if (!isPlainRecord(value)) malformed(`${path} is ${kind(value)}, which JSON cannot carry`);
    for (const [key, property] of Object.entries(value)) {
      jsonValue(property, `${path}[${JSON.stringify(key)}]`, depth + 1, ancestors);
    }
  }
  ancestors.delete(value);
}

/** A short description of a value's type for a fault; never the value itself. */
function kind(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype === Object.prototype) return 'an object';
    const name = (prototype as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name ? `a ${name}` : 'an object with a foreign prototype';
  }
  return `${/^[aeiou]/.test(typeof value) ? 'an' : 'a'} ${typeof value}`;
}
