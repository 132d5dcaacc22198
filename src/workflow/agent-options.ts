/**
 * The `agent()` options a script may pass and the rule for each value, in one place: the hooks
 * check them as a call runs (both engines), and the start-time check (`agent-call-check.ts`)
 * checks the ones written literally before any agent starts, with the same words. Pure; a
 * problem is returned as text, never thrown, and `schema` is the callers' own to check.
 */
import { didYouMean } from '../core/closest-name.js';
import type { ReasoningEffort } from '../llm/contract.js';

export const AGENT_OPTIONS = [
  'label',
  'phase',
  'schema',
  'model',
  'timeoutMs',
  'effort',
  'isolation',
  'agentType',
] as const;

export type AgentOptionName = (typeof AGENT_OPTIONS)[number];

/** Claude Code's effort levels, in order. */
export const EFFORT_LEVELS: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'max'];

/** The one isolation there is: the agent works in its own git worktree of the workspace. */
export const ISOLATION_WORKTREE = 'worktree';

/** The longest `timeoutMs` a timer can hold (2^31 - 1 ms, about 24.8 days). */
export const MAX_AGENT_TIMEOUT_MS = 2_147_483_647;

export function isAgentOption(key: string): key is AgentOptionName {
  return (AGENT_OPTIONS as readonly string[]).includes(key);
}

/** The refusal of an option `agent()` does not have, with the likely one it meant. */
export function unknownOptionMessage(key: string): string {
  return `agent() has no option ${JSON.stringify(key)}${didYouMean(key, AGENT_OPTIONS)} (options: ${AGENT_OPTIONS.join(', ')})`;
}

/** Why `value` cannot be the option `key` (any option but `schema`); undefined when it can. */
export function optionValueProblem(
  key: Exclude<AgentOptionName, 'schema'>,
  value: unknown,
): string | undefined {
  switch (key) {
    case 'label':
    case 'phase':
    case 'model':
    case 'agentType':
      return nonEmptyString(value)
        ? undefined
        : `agent() option ${key} must be a non-empty string, not ${describeValue(value)}`;
    case 'timeoutMs':
      return isAgentTimeout(value)
        ? undefined
        : `agent() option timeoutMs must be a positive whole number of milliseconds (at most ${MAX_AGENT_TIMEOUT_MS}), not ${typeof value === 'number' ? String(value) : describeValue(value)}`;
    case 'effort':
      return isEffort(value)
        ? undefined
        : `agent() option effort must be one of ${EFFORT_LEVELS.join(', ')}, not ${quoted(value)}${typeof value === 'string' ? didYouMean(value, EFFORT_LEVELS) : ''}`;
    case 'isolation':
      return value === ISOLATION_WORKTREE
        ? undefined
        : `agent() option isolation must be ${JSON.stringify(ISOLATION_WORKTREE)} (the agent works in its own git worktree), not ${quoted(value)}`;
    default:
      return key satisfies never;
  }
}

export function isEffort(value: unknown): value is ReasoningEffort {
  return typeof value === 'string' && (EFFORT_LEVELS as readonly string[]).includes(value);
}

/** A whole number of milliseconds from 1 to `MAX_AGENT_TIMEOUT_MS`. */
function isAgentTimeout(value: unknown): value is number {
  return (
    Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_AGENT_TIMEOUT_MS
  );
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/** A string as written (cut to a readable length), else its kind. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : describeValue(value);
}

/** A short, total description of a value's type for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length === 0 ? 'an empty string' : 'a string';
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'a non-plain object';
  return `${/^[aeiou]/.test(typeof value) ? 'an' : 'a'} ${typeof value}`;
}

/** An object whose prototype is some realm's `Object.prototype`, or null; not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}
