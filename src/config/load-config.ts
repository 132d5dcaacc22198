/**
 * Finds and reads config.yaml from `$LOOM_HOME` and `./.loom/` (the project's wins, key by key
 * at the top level and per section). An invalid file is one UserError naming the file, line
 * and field of every problem. Reads only; never writes a config file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { UserError } from '../core/errors.js';
import { configSchema, type LoomConfig } from './schema.js';

export function configPaths(home: string, cwd: string): string[] {
  return [join(home, 'config.yaml'), join(cwd, '.loom', 'config.yaml')];
}

export function parseConfig(text: string, file: string): LoomConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => {
      const line = error.linePos?.[0].line;
      const message = (error.message.split('\n')[0] ?? '').replace(
        / at line \d+, column \d+:?$/,
        '',
      );
      return `${file}${line ? `:${line}` : ''}: ${message}`;
    });
    throw new UserError('INVALID_CONFIG', `invalid config:\n${problems.join('\n')}`);
  }
  const value = document.toJS() ?? {};
  const parsed = configSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String);
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const fieldPath = keys.length === 1 ? [...path, String(keys[0])] : path;
    const node = document.getIn(fieldPath, true) as
      | { range?: [number, number, number] }
      | undefined;
    const keyNode = locateKey(document, fieldPath);
    const offset = keyNode ?? node?.range?.[0];
    const line = offset === undefined ? undefined : lineCounter.linePos(offset).line;
    const field = fieldPath.length > 0 ? fieldPath.join('.') : '(top level)';
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown field${keys.length > 1 ? `s ${keys.join(', ')}` : ''}`
        : issue.message;
    return `${file}${line ? `:${line}` : ''}: ${field}: ${message}`;
  });
  throw new UserError('INVALID_CONFIG', `invalid config:\n${problems.join('\n')}`);
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
  if (base.subagents || override.subagents) {
    merged.subagents = { ...base.subagents, ...override.subagents };
  }
  if (override.permissions)
    merged.permissions = [...override.permissions, ...(base.permissions ?? [])];
  return merged;
}

/** The merged config of every file that exists; `{}` when none does. */
export function loadConfig(home: string, cwd: string): LoomConfig {
  let config: LoomConfig = {};
  for (const file of configPaths(home, cwd)) {
    if (!existsSync(file)) continue;
    config = merge(config, parseConfig(readFileSync(file, 'utf8'), file));
  }
  return config;
}
