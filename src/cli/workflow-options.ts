/**
 * Option values of `loom workflow run|check`: the options each command takes, `--meta` and
 * `--args` as inline JSON or a JSON file, the limit flags, and how a start failure is worded. Every mistake is a UserError that
 * names the flag; nothing is accepted and then ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { errorMessage, UserError } from '../base/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, parseJsonText } from '../base/json-text.js';
import { WorkflowError, type WorkflowLimits } from '../workflow/contract.js';
import { LIMIT_RANGES } from '../workflow/limits.js';

export interface WorkflowCheckOptions {
  meta?: string;
}

export interface WorkflowRunOptions extends WorkflowCheckOptions {
  args?: string;
  model?: string;
  provider?: string;
  maxConcurrent?: string;
  maxAgents?: string;
  budgetTokens?: string;
  json?: boolean;
  events?: string;
  /** A kept run's id: run again, answering the calls its journal holds without a child. */
  resume?: string;
  /** Where to write the run's HTML report when it ends (completed, error or cancelled). */
  report?: string;
}

export interface LimitFlags {
  maxConcurrent?: string;
  maxAgents?: string;
}

function parseJson(flag: string, text: string, where: string): unknown {
  const parsed = parseJsonText(text);
  if (parsed.ok) {
    if (nestedDeeperThan(parsed.value, MAX_JSON_DEPTH)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `${flag}: ${where} is nested more than ${MAX_JSON_DEPTH} levels deep; flatten it`,
      );
    }
    return parsed.value;
  }
  const at = parsed.where ? ` at ${parsed.where}` : '';
  throw new UserError(
    'INVALID_ARGUMENT',
    `${flag}: ${where} is not valid JSON${at}: ${parsed.problem}`,
  );
}

/**
 * A value that opens like a JSON object or array is parsed as JSON; otherwise an existing file
 * is read as JSON; otherwise the text is tried as a JSON scalar.
 */
export function readJsonOption(flag: string, value: string): unknown {
  const text = value.trim();
  if (text.startsWith('{') || text.startsWith('[')) return parseJson(flag, text, 'the value');
  if (existsSync(value)) {
    let contents: string;
    try {
      contents = readFileSync(value, 'utf8');
    } catch (error) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `${flag}: cannot read ${value}: ${errorMessage(error)}`,
      );
    }
    return parseJson(flag, contents.replace(/^\uFEFF/, ''), value);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UserError(
      'INVALID_ARGUMENT',
      `${flag}: ${JSON.stringify(value)} is neither JSON nor the path of a JSON file`,
    );
  }
}

/** `--args`: a JSON object (inline or in a .json file); anything else is refused. */
export function parseArgsOption(value: string): Record<string, unknown> {
  const args = readJsonOption('--args', value);
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    const kind = args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`;
    throw new UserError('INVALID_ARGUMENT', `--args must be a JSON object (got ${kind})`);
  }
  return args as Record<string, unknown>;
}

function parseCount(flag: string, value: string, limit: keyof WorkflowLimits): number {
  const { minimum, maximum } = LIMIT_RANGES[limit];
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || count < minimum || count > maximum) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `${flag} must be a whole number from ${minimum} to ${maximum} (got ${value})`,
    );
  }
  return count;
}

/** `--max-concurrent` (1..256) and `--max-agents` as limits; absent flags leave config's. */
export function flagLimits(flags: LimitFlags): Partial<WorkflowLimits> {
  return {
    ...(flags.maxConcurrent !== undefined
      ? {
          maxConcurrentAgents: parseCount(
            '--max-concurrent',
            flags.maxConcurrent,
            'maxConcurrentAgents',
          ),
        }
      : {}),
    ...(flags.maxAgents !== undefined
      ? { maxTotalAgents: parseCount('--max-agents', flags.maxAgents, 'maxTotalAgents') }
      : {}),
  };
}

/** `--budget-tokens`: the run's token ceiling, a positive whole number. */
export function parseBudgetTokens(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(count) || count < 1) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--budget-tokens must be a positive whole number of tokens (got ${value})`,
    );
  }
  return count;
}

/** One line for stderr: a workflow error leads with its code (`META_INVALID: meta.name: …`). */
export function describeStartError(error: unknown): string {
  if (error instanceof WorkflowError) return `${error.code}: ${error.message}`;
  return errorMessage(error);
}
