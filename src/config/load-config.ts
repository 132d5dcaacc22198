/**
 * Finds and reads config.yaml from `$LOOM_HOME` and `./.loom/` (the project's wins, key by key
 * at the top level and per section; both files' `hooks` run). Invalid files are one UserError naming the file, line
 * and field of every problem of every file at once (an unknown key with its "did you mean");
 * so is one that is not UTF-8 text, is a folder, or whose aliases expand too far. Reads only; never writes a config file. The YAML parser and the schema (with
 * zod) are loaded only when there is a file to parse, so a start without config loads neither.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LineCounter, parseDocument } from 'yaml';
import { errorMessage, UserError } from '../base/errors.js';
import { didYouMean } from '../core/closest-name.js';
import { loadLibrary } from '../core/load-library.js';
import {
  configKeysAt,
  configSchemas,
  HOOK_EVENTS,
  type HooksConfig,
  type LoomConfig,
  type PermissionRule,
} from './schema.js';

/** Alias expansions a config file may use; more is an error (a "billion laughs" file). */
export const MAX_CONFIG_ALIASES = 100;

/** Where a permission rule was written, for problems found after loading (unknown tool names). */
export interface RuleOrigin {
  file: string;
  /** The rule's index in its file's `permissions` list. */
  index: number;
  /** 1-based line of the rule, its `tool` value and each `match` key, when known. */
  line?: number;
  toolLine?: number;
  matchLines: Record<string, number>;
}

const ruleOrigins = new WeakMap<PermissionRule, RuleOrigin>();

/** The file and lines a loaded rule came from; undefined for a rule not read from a file. */
export function ruleOrigin(rule: PermissionRule): RuleOrigin | undefined {
  return ruleOrigins.get(rule);
}

let yaml: typeof import('yaml') | undefined;

/** The `yaml` package, loaded at the first parse (synchronously: loading config is synchronous). */
function yamlParser(): typeof import('yaml') {
  yaml ??= loadLibrary('yaml');
  return yaml;
}

/** One problem of a config file, as its error lists it: `FILE:LINE: field: what is wrong`. */
interface Problem {
  line?: number;
  text: string;
}

function invalid(file: string, problem: string): UserError {
  return new UserError('INVALID_CONFIG', `invalid config:\n${file}: ${problem}`);
}

/** One error listing every problem found, each file's in line order. */
function invalidConfig(problems: readonly string[]): UserError {
  return new UserError('INVALID_CONFIG', `invalid config:\n${problems.join('\n')}`);
}

export function configPaths(home: string, cwd: string): string[] {
  return [join(home, 'config.yaml'), join(cwd, '.loom', 'config.yaml')];
}

function placed(file: string, problems: Problem[]): string[] {
  return problems
    .map((problem, index) => ({ ...problem, index }))
    .sort((left, right) => (left.line ?? 0) - (right.line ?? 0) || left.index - right.index)
    .map((problem) => `${file}${problem.line ? `:${problem.line}` : ''}: ${problem.text}`);
}

export function parseConfig(text: string, file: string): LoomConfig {
  const { LineCounter, parseDocument } = yamlParser();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => {
      const line = error.linePos?.[0].line;
      const message = (error.message.split('\n')[0] ?? '').replace(
        / at line \d+, column \d+:?$/,
        '',
      );
      return { ...(line ? { line } : {}), text: message };
    });
    throw invalidConfig(placed(file, problems));
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_CONFIG_ALIASES }) ?? {};
  } catch (error) {
    throw invalid(
      file,
      `its YAML aliases expand too far (${errorMessage(error)}); at most ${MAX_CONFIG_ALIASES} alias expansions are allowed`,
    );
  }
  const parsed = configSchemas().configSchema.safeParse(value);
  if (parsed.success) {
    recordRuleOrigins(parsed.data, document, lineCounter, file);
    return parsed.data;
  }
  const lineOf = (path: string[]): number | undefined => {
    const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
    const offset = locateKey(document, path) ?? node?.range?.[0];
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  };
  const fieldName = (path: string[]) => (path.length > 0 ? path.join('.') : '(top level)');
  const problems = parsed.error.issues.flatMap((issue): Problem[] => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const known = configKeysAt(issue.path);
      return issue.keys.map((key) => {
        const line = lineOf([...path, String(key)]);
        return {
          ...(line ? { line } : {}),
          text: `${fieldName([...path, String(key)])}: unknown field${didYouMean(String(key), known)}`,
        };
      });
    }
    const line = lineOf(path);
    const message =
      issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    return [{ ...(line ? { line } : {}), text: `${fieldName(path)}: ${message}` }];
  });
  throw invalidConfig(placed(file, problems));
}

/** The offset of the key of `path` in its parent map, when there is one. */
function locateKey(document: ReturnType<typeof parseDocument>, path: string[]): number | undefined {
  if (path.length === 0) return undefined;
  const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
  const items = (
    parent as { items?: Array<{ key?: { value?: unknown; range?: [number, number, number] } }> }
  )?.items;
  const pair = items?.find((item) => String(item.key?.value) === path[path.length - 1]);
  return pair?.key?.range?.[0];
}

function recordRuleOrigins(
  config: LoomConfig,
  document: ReturnType<typeof parseDocument>,
  lineCounter: LineCounter,
  file: string,
): void {
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  config.permissions?.forEach((rule, index) => {
    const path = ['permissions', String(index)];
    const node = document.getIn(['permissions', index], true) as
      | { range?: [number, number, number] }
      | undefined;
    const line = lineOf(node?.range?.[0]);
    const toolLine = lineOf(locateKey(document, [...path, 'tool']));
    const matchLines: Record<string, number> = {};
    for (const key of Object.keys(rule.match ?? {})) {
      const keyLine = lineOf(locateKey(document, [...path, 'match', key]));
      if (keyLine !== undefined) matchLines[key] = keyLine;
    }
    ruleOrigins.set(rule, {
      file,
      index,
      ...(line !== undefined ? { line } : {}),
      ...(toolLine !== undefined ? { toolLine } : {}),
      matchLines,
    });
  });
}

/**
 * The text of a config file; undefined when there is none. A folder, a file that is not UTF-8
 * (UTF-16 is detected by its byte-order mark or NUL bytes) or an unreadable one is a UserError.
 */
export function readConfigFile(file: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'EISDIR') throw invalid(file, 'is a directory; it must be a YAML file');
    throw invalid(file, `cannot be read: ${errorMessage(error)}`);
  }
  const utf16 =
    (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (utf16) throw invalid(file, 'is UTF-16 text; config files must be UTF-8');
  if (bytes.includes(0)) {
    throw invalid(file, 'contains NUL bytes (UTF-16 or binary?); config files must be UTF-8 text');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalid(file, 'is not valid UTF-8; config files must be UTF-8 text');
  }
}

function merge(base: LoomConfig, override: LoomConfig): LoomConfig {
  const merged: LoomConfig = { ...base, ...override };
  if (base.models || override.models) merged.models = { ...base.models, ...override.models };
  if (base.tools || override.tools) merged.tools = { ...base.tools, ...override.tools };
  if (base.agent || override.agent) merged.agent = { ...base.agent, ...override.agent };
  if (base.retry || override.retry) merged.retry = { ...base.retry, ...override.retry };
  if (base.workflow || override.workflow) {
    merged.workflow = { ...base.workflow, ...override.workflow };
  }
  if (base.jobs || override.jobs) merged.jobs = { ...base.jobs, ...override.jobs };
  if (base.sandbox || override.sandbox) merged.sandbox = { ...base.sandbox, ...override.sandbox };
  if (base.subagents || override.subagents) {
    merged.subagents = { ...base.subagents, ...override.subagents };
  }
  if (base.mcp || override.mcp) {
    const servers = { ...base.mcp?.servers, ...override.mcp?.servers };
    merged.mcp = { ...base.mcp, ...override.mcp };
    if (Object.keys(servers).length > 0) merged.mcp.servers = servers;
  }
  if (override.permissions)
    merged.permissions = [...override.permissions, ...(base.permissions ?? [])];
  if (base.hooks && override.hooks) merged.hooks = mergedHooks(base.hooks, override.hooks);
  return merged;
}

/** Both files' hooks run: for each event, the personal file's groups, then the project's. */
function mergedHooks(base: HooksConfig, override: HooksConfig): HooksConfig {
  const merged: HooksConfig = { ...base };
  for (const event of HOOK_EVENTS) {
    const groups = [...(base[event] ?? []), ...(override[event] ?? [])];
    if (groups.length > 0) merged[event] = groups;
  }
  return merged;
}

/**
 * The merged config of every file that exists; `{}` when none does. Every file is read before
 * anything fails, so one error lists the problems of both.
 */
export function loadConfig(home: string, cwd: string): LoomConfig {
  let config: LoomConfig = {};
  const problems: string[] = [];
  for (const file of configPaths(home, cwd)) {
    try {
      const text = readConfigFile(file);
      if (text === undefined) continue;
      config = merge(config, parseConfig(text, file));
    } catch (error) {
      if (!(error instanceof UserError) || error.code !== 'INVALID_CONFIG') throw error;
      problems.push(...error.message.split('\n').slice(1));
    }
  }
  if (problems.length > 0) throw invalidConfig(problems);
  return config;
}
