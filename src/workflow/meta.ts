/**
 * Shape validation of a workflow's meta block, which is data and never code. Every violation is
 * collected and named by its path in one `META_INVALID` error; unknown keys are rejected at every
 * level. It must never evaluate anything, and it returns a fresh copy the caller cannot mutate.
 */
import { WorkflowError, type WorkflowMeta, type WorkflowPhase } from './contract.js';
import { appendPropertyPath } from './materialize.js';

export const MAXIMUM_META_NAME_LENGTH = 100;

const metaKeys = ['name', 'description', 'whenToUse', 'phases', 'budgetTokens'] as const;
const phaseKeys = ['title', 'detail', 'model'] as const;

type PlainObject = Record<string, unknown>;
type Report = (path: string, text: string) => void;

export function validateMeta(value: unknown): WorkflowMeta {
  const violations: string[] = [];
  const problem: Report = (path, text) => violations.push(`${path}: ${text}`);
  if (!isPlainObject(value)) {
    problem('meta', `must be an object with name and description, not ${describeType(value)}`);
    throw invalid(violations);
  }
  rejectUnknownKeys(value, metaKeys, 'meta', problem);
  const name = requireText(value, 'name', 'meta', problem);
  if (name !== undefined && name.length > MAXIMUM_META_NAME_LENGTH) {
    problem(
      'meta.name',
      `must be at most ${MAXIMUM_META_NAME_LENGTH} characters (it has ${name.length})`,
    );
  }
  const description = requireText(value, 'description', 'meta', problem);
  const whenToUse = optionalString(value, 'whenToUse', 'meta', problem);
  const phases = value.phases === undefined ? undefined : validatePhases(value.phases, problem);
  const budgetTokens = optionalTokenCount(value, 'budgetTokens', 'meta', problem);
  if (violations.length > 0) throw invalid(violations);
  const meta: WorkflowMeta = { name: name as string, description: description as string };
  if (whenToUse !== undefined) meta.whenToUse = whenToUse;
  if (phases !== undefined) meta.phases = phases;
  if (budgetTokens !== undefined) meta.budgetTokens = budgetTokens;
  return meta;
}

function validatePhases(value: unknown, problem: Report): WorkflowPhase[] | undefined {
  if (!Array.isArray(value)) {
    problem('meta.phases', `must be an array of phase objects, not ${describeType(value)}`);
    return undefined;
  }
  const phases: WorkflowPhase[] = [];
  const seenTitles = new Map<string, string>();
  value.forEach((entry: unknown, index) => {
    const path = appendPropertyPath('meta.phases', index);
    if (!isPlainObject(entry)) {
      problem(path, `must be an object with a title, not ${describeType(entry)}`);
      return;
    }
    rejectUnknownKeys(entry, phaseKeys, path, problem);
    const title = requireText(entry, 'title', path, problem);
    const detail = optionalString(entry, 'detail', path, problem);
    const model = optionalString(entry, 'model', path, problem, true);
    if (title === undefined) return;
    const earlier = seenTitles.get(title);
    if (earlier !== undefined) {
      problem(`${path}.title`, `duplicates ${earlier}.title (${JSON.stringify(title)})`);
    }
    seenTitles.set(title, earlier ?? path);
    const phase: WorkflowPhase = { title };
    if (detail !== undefined) phase.detail = detail;
    if (model !== undefined) phase.model = model;
    phases.push(phase);
  });
  return phases;
}

function rejectUnknownKeys(
  value: PlainObject,
  allowed: readonly string[],
  path: string,
  problem: Report,
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      problem(appendPropertyPath(path, key), `unknown key (allowed: ${allowed.join(', ')})`);
    }
  }
}

function requireText(
  value: PlainObject,
  key: string,
  path: string,
  problem: Report,
): string | undefined {
  const field = value[key];
  if (typeof field === 'string' && field.trim().length > 0) return field;
  const found = field === undefined ? 'it is missing' : `not ${describeType(field)}`;
  problem(appendPropertyPath(path, key), `must be a non-empty string (${found})`);
  return undefined;
}

/** An absent key and an explicit `undefined` both mean "not given". */
function optionalString(
  value: PlainObject,
  key: string,
  path: string,
  problem: Report,
  nonEmpty = false,
): string | undefined {
  const field = value[key];
  if (field === undefined) return undefined;
  if (typeof field === 'string' && (!nonEmpty || field.trim().length > 0)) return field;
  const wanted = nonEmpty ? 'a non-empty string' : 'a string';
  problem(appendPropertyPath(path, key), `must be ${wanted}, not ${describeType(field)}`);
  return undefined;
}

/** A positive whole number (a token count), or absent. */
function optionalTokenCount(
  value: PlainObject,
  key: string,
  path: string,
  problem: Report,
): number | undefined {
  const field = value[key];
  if (field === undefined) return undefined;
  if (typeof field === 'number' && Number.isSafeInteger(field) && field > 0) return field;
  const found = typeof field === 'number' ? String(field) : describeType(field);
  problem(appendPropertyPath(path, key), `must be a positive whole number of tokens, not ${found}`);
  return undefined;
}

function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    if (value.length === 0) return 'an empty string';
    return value.trim().length === 0 ? 'a blank string' : 'a string';
  }
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'a non-plain object';
  return `${/^[aeiou]/.test(typeof value) ? 'an' : 'a'} ${typeof value}`;
}

function invalid(violations: readonly string[]): WorkflowError {
  const count = violations.length === 1 ? '1 problem' : `${violations.length} problems`;
  return new WorkflowError(
    'META_INVALID',
    `invalid workflow meta (${count}):\n  ${violations.join('\n  ')}`,
  );
}
