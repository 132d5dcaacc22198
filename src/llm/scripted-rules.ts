/**
 * The scripted model file: its types, and validation that checks everything up front and reports
 * every problem at once (file path plus the JSON path of each field) in one UserError. A file
 * that passes here never fails later for its shape. This module must never read the network or
 * evaluate anything from the file beyond compiling each `when` as a regular expression.
 */
import { readFileSync } from 'node:fs';
import { errorMessage, UserError } from '../base/errors.js';
import { parseJsonText } from '../base/json-text.js';
import { findMalformedPaths } from './scripted-substitution.js';

/** The one code of the scripted model: a file that does not describe a valid model. */
export type ScriptedModelErrorCode = 'INVALID_SCRIPTED_MODEL';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<ScriptedModelErrorCode, true> {}
}

export interface ScriptedUsage {
  input: number;
  output: number;
  /** Prompt tokens read from the provider's cache (reported as `Usage.cachedInput`). */
  cacheRead?: number;
  /** Prompt tokens written to the provider's cache. */
  cacheWrite?: number;
}

export interface ScriptedToolCall {
  name: string;
  /** Default: `{}`. Every string inside is substituted like reply text. */
  arguments?: Record<string, unknown>;
}

/** Shared by every response; on a `steps` response they apply to each step without its own. */
export interface ScriptedResponseOptions {
  /** Waits this long (abortable) before answering. Default: no wait. */
  delayMs?: number;
  /** Reported instead of the estimate of about 4 characters a token. */
  usage?: ScriptedUsage;
}

/** One answer to one model request: exactly one of reply, output, tools, error, hang. */
export type ScriptedStep = ScriptedResponseOptions &
  (
    | { reply: string; reasoning?: string }
    | { output: unknown; reasoning?: string }
    | { tools: ScriptedToolCall[]; reasoning?: string }
    /** `status` 429 or 5xx makes the failure retryable. */
    | { error: string; status?: number }
    | { hang: true }
  );

/** `steps[i]` answers request i of a turn; the last one repeats. */
export type ScriptedResponse = ScriptedStep | (ScriptedResponseOptions & { steps: ScriptedStep[] });

export type ScriptedRule = ScriptedResponse & {
  /** JavaScript regular expression source, tested against the latest user message. */
  when: string;
  /** Answers at most this often (on a `steps` rule: starts at most this many turns). */
  times?: number;
};

export interface ScriptedModelFile {
  /**
   * The model's context window in tokens: a request larger than it (about 4 characters a token)
   * fails as a provider's "context length exceeded" would. Default: no window of its own.
   */
  context?: number;
  /** The model takes images. */
  images?: boolean;
  /** Tried in order; may be omitted when `default` answers everything. */
  rules?: ScriptedRule[];
  /** Answers when no rule matches; without it an unmatched prompt is an error. */
  default?: ScriptedResponse;
}

/** A validated file: `rules` is always present (empty when the file has only a default). */
export type ValidScriptedModel = ScriptedModelFile & { rules: ScriptedRule[] };

type Place = 'rule' | 'default' | 'step';

const stepKinds = ['reply', 'output', 'tools', 'error', 'hang'] as const;
const responseKinds = [...stepKinds, 'steps'] as const;
const sharedFields = ['delayMs', 'usage', 'reasoning', 'status', ...stepKinds];
const allowedFields: Record<Place, readonly string[]> = {
  rule: [...sharedFields, 'steps', 'when', 'times'],
  default: [...sharedFields, 'steps'],
  step: sharedFields,
};
/** Every field a rule may have (the README documents each one). */
export const scriptedRuleFields: readonly string[] = allowedFields.rule;
const topLevelFields: readonly string[] = ['rules', 'default', 'context', 'images'];
const usageFields: readonly string[] = ['input', 'output', 'cacheRead', 'cacheWrite'];
const placeNames: Record<Place, string> = { rule: 'a rule', default: 'default', step: 'a step' };

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const has = (value: JsonObject, key: string): boolean =>
  Object.hasOwn(value, key) && value[key] !== undefined;
const isNonNegativeInteger = (value: unknown): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isPositiveInteger = (value: unknown): boolean => isNonNegativeInteger(value) && value !== 0;
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

class Problems {
  readonly lines: string[] = [];
  constructor(readonly source: string) {}
  add(path: string, problem: string): void {
    this.lines.push(path ? `${this.source}: ${path}: ${problem}` : `${this.source}: ${problem}`);
  }
  throwIfAny(): void {
    if (this.lines.length === 0) return;
    const count = this.lines.length === 1 ? '1 problem' : `${this.lines.length} problems`;
    const list = this.lines.map((line) => `  ${line}`).join('\n');
    throw new UserError(
      'INVALID_SCRIPTED_MODEL',
      `invalid scripted model ${this.source} (${count}):\n${list}`,
    );
  }
}

/** Reads and validates a scripted model file; a missing or unreadable file is a UserError. */
export function loadScriptedModel(path: string): ValidScriptedModel {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const message = missing
      ? `scripted model file not found: ${path}`
      : `cannot read scripted model ${path}: ${errorMessage(error)}`;
    throw new UserError('INVALID_SCRIPTED_MODEL', message, { cause: error });
  }
  return parseScriptedModel(text, path);
}

/** Parses JSON text and validates it; `source` names the file in every problem. */
export function parseScriptedModel(text: string, source: string): ValidScriptedModel {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const parsed = parseJsonText(body);
  if (!parsed.ok) {
    const problems = new Problems(source);
    problems.add(parsed.where, `invalid JSON: ${parsed.problem}`);
    problems.throwIfAny();
  }
  return validateScriptedModel(parsed.ok ? parsed.value : undefined, source);
}

/** Validates an already parsed value (for example an object literal in a test). */
export function validateScriptedModel(value: unknown, source: string): ValidScriptedModel {
  const problems = new Problems(source);
  if (!isObject(value)) {
    problems.add('', 'must be a JSON object with a "rules" array, a "default" answer or both');
    problems.throwIfAny();
    return value as never;
  }
  for (const key of Object.keys(value)) {
    if (!topLevelFields.includes(key)) problems.add(key, 'unknown field');
  }
  if (has(value, 'context') && !isPositiveInteger(value.context)) {
    problems.add('context', 'must be a positive integer (the context window in tokens)');
  }
  if (has(value, 'images') && typeof value.images !== 'boolean') {
    problems.add('images', 'must be true or false');
  }
  if (!has(value, 'rules')) {
    if (!has(value, 'default')) problems.add('rules', 'is required when there is no default');
  } else if (!Array.isArray(value.rules)) problems.add('rules', 'must be an array');
  else {
    value.rules.forEach((rule, index) => {
      checkResponse(rule, `rules[${index}]`, 'rule', problems);
    });
  }
  if (has(value, 'default')) checkResponse(value.default, 'default', 'default', problems);
  problems.throwIfAny();
  const file = value as unknown as ScriptedModelFile;
  return { ...file, rules: file.rules ?? [] };
}

function checkResponse(value: unknown, path: string, place: Place, problems: Problems): void {
  if (!isObject(value)) {
    problems.add(path, 'must be an object');
    return;
  }
  for (const key of Object.keys(value)) {
    if (allowedFields[place].includes(key)) continue;
    const known = allowedFields.rule.includes(key);
    problems.add(join(path, key), known ? `not allowed in ${placeNames[place]}` : 'unknown field');
  }
  const kinds = place === 'step' ? stepKinds : responseKinds;
  const found = kinds.filter((kind) => has(value, kind));
  if (found.length !== 1) {
    const foundText = found.length === 0 ? 'none' : found.join(', ');
    problems.add(path, `exactly one of ${kinds.join(', ')} is required (found ${foundText})`);
  }
  if (place === 'rule') checkRuleFields(value, path, problems);
  checkOptions(value, path, problems);
  checkAnswer(value, path, problems);
  if (place !== 'step' && has(value, 'steps')) {
    const steps = value.steps;
    if (!Array.isArray(steps) || steps.length === 0) {
      problems.add(join(path, 'steps'), 'must be a non-empty array');
    } else {
      steps.forEach((step, index) => {
        checkResponse(step, `${join(path, 'steps')}[${index}]`, 'step', problems);
      });
    }
  }
}

function checkRuleFields(rule: JsonObject, path: string, problems: Problems): void {
  if (!has(rule, 'when')) problems.add(join(path, 'when'), 'is required');
  else if (typeof rule.when !== 'string') problems.add(join(path, 'when'), 'must be a string');
  else {
    try {
      new RegExp(rule.when);
    } catch (error) {
      const prefix = `Invalid regular expression: /${rule.when}/: `;
      const message = errorMessage(error);
      const reason = message.startsWith(prefix) ? message.slice(prefix.length) : message;
      problems.add(join(path, 'when'), `invalid regular expression: ${reason}`);
    }
  }
  if (has(rule, 'times')) {
    const times = rule.times;
    if (!isPositiveInteger(times)) {
      problems.add(join(path, 'times'), 'must be a positive integer');
    }
  }
}

function checkOptions(value: JsonObject, path: string, problems: Problems): void {
  if (has(value, 'delayMs')) {
    const delay = value.delayMs;
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0) {
      problems.add(join(path, 'delayMs'), 'must be a non-negative finite number');
    }
  }
  if (!has(value, 'usage')) return;
  const usagePath = join(path, 'usage');
  const usage = value.usage;
  if (!isObject(usage)) {
    problems.add(usagePath, 'must be an object with input and output');
    return;
  }
  for (const key of Object.keys(usage)) {
    if (!usageFields.includes(key)) problems.add(join(usagePath, key), 'unknown field');
  }
  for (const key of usageFields) {
    const required = key === 'input' || key === 'output';
    if (!has(usage, key)) {
      if (required) problems.add(join(usagePath, key), 'is required');
    } else if (!isNonNegativeInteger(usage[key])) {
      problems.add(join(usagePath, key), 'must be a non-negative integer');
    }
  }
}

function checkAnswer(value: JsonObject, path: string, problems: Problems): void {
  const field = (key: string) => join(path, key);
  for (const key of ['reply', 'reasoning', 'error', 'output']) {
    if (has(value, key)) checkPlaceholders(value[key], field(key), problems);
  }
  if (has(value, 'reply') && typeof value.reply !== 'string') {
    problems.add(field('reply'), 'must be a string');
  }
  if (has(value, 'reasoning')) {
    if (typeof value.reasoning !== 'string') problems.add(field('reasoning'), 'must be a string');
    if (!['reply', 'output', 'tools'].some((kind) => has(value, kind))) {
      problems.add(field('reasoning'), 'only allowed with reply, output or tools');
    }
  }
  if (has(value, 'tools')) checkTools(value.tools, field('tools'), problems);
  if (has(value, 'error')) {
    if (typeof value.error !== 'string' || value.error === '') {
      problems.add(field('error'), 'must be a non-empty string');
    }
  }
  if (has(value, 'status')) {
    const status = value.status;
    if (!isNonNegativeInteger(status) || (status as number) < 100 || (status as number) > 599) {
      problems.add(field('status'), 'must be an integer HTTP status (100-599)');
    }
    if (!has(value, 'error')) problems.add(field('status'), 'only allowed with error');
  }
  if (has(value, 'hang') && value.hang !== true) problems.add(field('hang'), 'must be true');
}

function checkTools(tools: unknown, path: string, problems: Problems): void {
  if (!Array.isArray(tools) || tools.length === 0) {
    problems.add(path, 'must be a non-empty array');
    return;
  }
  tools.forEach((call, index) => {
    const callPath = `${path}[${index}]`;
    if (!isObject(call)) {
      problems.add(callPath, 'must be an object with a name');
      return;
    }
    for (const key of Object.keys(call)) {
      if (key !== 'name' && key !== 'arguments') problems.add(join(callPath, key), 'unknown field');
    }
    if (typeof call.name !== 'string' || call.name === '') {
      problems.add(join(callPath, 'name'), 'must be a non-empty string');
    }
    if (has(call, 'arguments') && !isObject(call.arguments)) {
      problems.add(join(callPath, 'arguments'), 'must be an object');
    } else checkPlaceholders(call.arguments, join(callPath, 'arguments'), problems);
  });
}

/** A malformed `{{lastToolResult.PATH}}` can never be filled in, so it fails the file now. */
function checkPlaceholders(value: unknown, path: string, problems: Problems): void {
  for (const problem of findMalformedPaths(value, path)) {
    problems.add(problem.field, problem.message);
  }
}
