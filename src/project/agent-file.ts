/**
 * One agent type file (`NAME.md`): YAML front matter between `---` lines (`name`, `description`,
 * optional `tools`, `model`, `effort`) and a body that is the agent's prompt. Claude Code's forms
 * are read as it writes them: `tools` as a list or a comma-separated string of its tool names,
 * `model: inherit` or one of its model names. Keys it does not know (`color`, say) are ignored.
 * The front matter is read by `markdown-front-matter.ts`, as skills and commands are. Pure: it parses text it is given and never reads a file.
 */
import type { ReasoningEffort } from '../llm/contract.js';
import type { AgentType } from './agent-types-contract.js';
import { loomToolName } from './claude-tool-names.js';
import { parseFrontMatter } from './markdown-front-matter.js';

/** A type's name: letters, digits, `-`, `_`, `.`; a plugin's prefix is added by its folder. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const EFFORTS: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'max'];

/** Claude Code's `model:` values that name no Loom model: the caller's model runs the agent. */
const CALLERS_MODEL = new Set(['inherit', 'sonnet', 'opus', 'haiku']);

export type ParsedAgentFile =
  | { kind: 'valid'; type: Omit<AgentType, 'origin' | 'path'> }
  | { kind: 'invalid'; name: string; problem: string };

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
  // As Claude Code reads it: where YAML refuses (`description: Use when: …`), `name: text` lines.
  const front = parseFrontMatter(text, `${stem}.md`);
  if (front.kind === 'invalid') {
    const { line, message } = front.problem;
    return {
      kind: 'invalid',
      name: stem,
      problem: line === undefined ? message : `line ${line}: ${message}`,
    };
  }
  if (!front.present) {
    return {
      kind: 'invalid',
      name: stem,
      problem:
        'no front matter: start the file with a --- line, then name: and description:, then a --- line and the prompt',
    };
  }
  const record = front.fields;
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
  const type: Omit<AgentType, 'origin' | 'path'> = {
    name,
    description,
    prompt: front.body.replace(/\r\n/g, '\n').trim(),
  };
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
