/**
 * One agent type file (`NAME.md`): YAML front matter between `---` lines (`name`, `description`,
 * optional `tools`, `model`, `effort`) and a body that is the agent's prompt. Claude Code's forms
 * are read as it writes them: `tools` as a list or a comma-separated string of its tool names,
 * `model: inherit` or one of its model names. Keys it does not know (`color`, say) are ignored.
 * Pure: it parses text it is given and never reads a file.
 */
import { loadLibrary } from '../core/load-library.js';
import type { ReasoningEffort } from '../llm/contract.js';
import type { AgentType } from './agent-types-contract.js';
import { loomToolName } from './claude-tool-names.js';

/** A type's name: letters, digits, `-`, `_`, `.`; a plugin's prefix is added by its folder. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const EFFORTS: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'max'];

/** Claude Code's `model:` values that name no Loom model: the caller's model runs the agent. */
const CALLERS_MODEL = new Set(['inherit', 'sonnet', 'opus', 'haiku']);

/** More alias expansions than a front matter needs is a malformed (or hostile) file. */
const MAX_ALIASES = 20;

export type ParsedAgentFile =
  | { kind: 'valid'; type: Omit<AgentType, 'origin' | 'path'> }
  | { kind: 'invalid'; name: string; problem: string };

/** The text between the opening and the closing `---` lines, and what follows them. */
function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return undefined;
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (end < 0) return undefined;
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n') };
}

let yaml: typeof import('yaml') | undefined;

/** The `yaml` package, loaded at the first file: a workspace without agent files never loads it. */
function yamlParser(): typeof import('yaml') {
  yaml ??= loadLibrary('yaml');
  return yaml;
}

function parseYaml(
  library: typeof import('yaml'),
  text: string,
): { value: unknown } | { problem: string } {
  const lineCounter = new library.LineCounter();
  const document = library.parseDocument(text, { lineCounter });
  const [error] = document.errors;
  if (error) {
    // Lines of the file: the front matter starts on its second.
    const line = (error.linePos?.[0].line ?? 0) + 1;
    const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return { problem: `front matter (line ${line}): ${message}` };
  }
  try {
    return { value: document.toJS({ maxAliasCount: MAX_ALIASES }) };
  } catch (error) {
    return { problem: `front matter: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** `tools:` as Loom's names, from a list or a comma-separated string; a problem for anything else. */
function toolsOf(value: unknown): { tools: string[] } | { problem: string } {
  const items = typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value;
  if (!Array.isArray(items)) {
    return { problem: 'tools: must be a list of tool names or a comma-separated string' };
  }
  const tools: string[] = [];
  for (const [index, item] of items.entries()) {
    if (item === '' && typeof value === 'string') continue;
    if (typeof item !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(item.trim())) {
      return {
        problem: `tools: item ${index + 1} must be a tool name such as Read or read_file (got ${JSON.stringify(item)})`,
      };
    }
    const name = loomToolName(item.trim());
    if (!tools.includes(name)) tools.push(name);
  }
  return { tools };
}

/** `model:` as a Loom model spec, undefined when it leaves the choice to the caller. */
function modelOf(value: unknown): { model: string | undefined } | { problem: string } {
  if (typeof value !== 'string' || value.trim() === '') {
    return { problem: 'model: must be a model spec such as openai:gpt-5 (or inherit)' };
  }
  const model = value.trim();
  if (CALLERS_MODEL.has(model)) return { model: undefined };
  if (!model.includes(':')) {
    return {
      problem: `model: ${JSON.stringify(model)} is not a model spec: write provider:model (such as anthropic:claude-sonnet-4-5), or inherit for the caller's model`,
    };
  }
  return { model };
}

/** Parses `text` of a file called `stem`.md; every problem of the file is named, field by field. */
export function parseAgentFile(text: string, stem: string): ParsedAgentFile {
  const parts = splitFrontMatter(text);
  if (!parts) {
    return {
      kind: 'invalid',
      name: stem,
      problem:
        'no front matter: start the file with a --- line, then name: and description:, then a --- line and the prompt',
    };
  }
  const parsed = parseYaml(yamlParser(), parts.yaml);
  if ('problem' in parsed) return { kind: 'invalid', name: stem, problem: parsed.problem };
  const fields = parsed.value;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    return {
      kind: 'invalid',
      name: stem,
      problem: 'front matter: must be a mapping of fields (name: …, description: …)',
    };
  }
  const record = fields as Record<string, unknown>;
  const problems: string[] = [];
  let name = stem;
  if (record.name !== undefined) {
    if (typeof record.name === 'string' && AGENT_NAME.test(record.name.trim())) {
      name = record.name.trim();
    } else {
      problems.push(
        `name: must be 1-64 letters, digits, "-", "_" or "." (got ${JSON.stringify(record.name)})`,
      );
    }
  }
  const description = typeof record.description === 'string' ? record.description.trim() : '';
  if (description === '') {
    problems.push(
      record.description === undefined
        ? 'description: missing (say in one line what the agent is for)'
        : 'description: must be a non-empty text',
    );
  }
  const type: Omit<AgentType, 'origin' | 'path'> = { name, description, prompt: parts.body.trim() };
  if (record.tools !== undefined && record.tools !== null) {
    const tools = toolsOf(record.tools);
    if ('problem' in tools) problems.push(tools.problem);
    else type.tools = tools.tools;
  }
  if (record.model !== undefined && record.model !== null) {
    const model = modelOf(record.model);
    if ('problem' in model) problems.push(model.problem);
    else if (model.model !== undefined) type.model = model.model;
  }
  if (record.effort !== undefined && record.effort !== null) {
    if (EFFORTS.includes(record.effort as ReasoningEffort)) {
      type.effort = record.effort as ReasoningEffort;
    } else {
      problems.push(
        `effort: must be low, medium, high or max (got ${JSON.stringify(record.effort)})`,
      );
    }
  }
  if (problems.length > 0) return { kind: 'invalid', name, problem: problems.join('; ') };
  return { kind: 'valid', type };
}
