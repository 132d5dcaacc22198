/**
 * `allowed-tools` as Claude Code writes it (`Bash(git add:*), Bash(git status:*), Read`, a list,
 * or the Agent Skills' space-separated names): each entry a tool name, in Claude Code's names or
 * Loom's, with an optional pattern in parentheses. Names map to Loom's (`Bash` is `bash`); a
 * name may end in `*`, and `mcp__SERVER` names every tool of that server. A `bash` pattern is
 * applied to each simple command of the line (`git add:*` is `git add` and what follows it);
 * another tool's pattern is not applied (the tool is allowed whatever its arguments, and the
 * caller says so). Pure.
 */
import { normaliseWhitespace, splitShellCommands } from '../config/shell-commands.js';
import { loomToolName } from './claude-tool-names.js';

export interface AllowedTool {
  /** The entry as written (`Bash(git add:*)`). */
  written: string;
  /** The tool name in Loom's terms (`bash`). */
  tool: string;
  /** The part in parentheses, when there is one. */
  pattern?: string;
}

const ENTRY = /^([A-Za-z0-9_*-]+)(?:\(([\s\S]*)\))?$/;

/** The entries of `value` (text or a list of text), or a message saying what is wrong. */
export function parseAllowedTools(value: unknown): AllowedTool[] | { problem: string } {
  const pieces =
    typeof value === 'string'
      ? splitEntries(value)
      : Array.isArray(value) && value.every((entry) => typeof entry === 'string')
        ? value.flatMap(splitEntries)
        : undefined;
  if (pieces === undefined) return { problem: 'must be text or a list of tool names' };
  const entries: AllowedTool[] = [];
  for (const written of pieces) {
    const match = ENTRY.exec(written);
    if (!match) {
      return {
        problem: `${JSON.stringify(written)} is not a tool name with an optional (pattern), such as Bash(git status:*) or read_file`,
      };
    }
    const pattern = match[2]?.trim();
    entries.push({
      written,
      tool: loomToolName(match[1] as string),
      ...(pattern !== undefined && pattern !== '' && pattern !== '*' ? { pattern } : {}),
    });
  }
  return entries;
}

/** Entries are separated by commas or blanks outside parentheses. */
function splitEntries(text: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of text) {
    if (character === '(') depth += 1;
    if (character === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (character === ',' || /\s/.test(character))) {
      if (current.trim() !== '') entries.push(current.trim());
      current = '';
      continue;
    }
    current += character;
  }
  if (current.trim() !== '') entries.push(current.trim());
  return entries;
}

/** Whether an entry's tool name names `tool`. */
export function namesTool(entry: AllowedTool, tool: string): boolean {
  if (entry.tool === tool) return true;
  if (entry.tool.endsWith('*')) return tool.startsWith(entry.tool.slice(0, -1));
  return entry.tool.startsWith('mcp__') && !entry.tool.slice(5).includes('__')
    ? tool.startsWith(`${entry.tool}__`)
    : false;
}

/** Why the call may not run under `allowed`, or undefined when it may. */
export function refusal(
  allowed: readonly AllowedTool[],
  tool: string,
  args: unknown,
): string | undefined {
  const entries = allowed.filter((entry) => namesTool(entry, tool));
  if (entries.length === 0) return `${tool} is not among them`;
  if (tool !== 'bash' || entries.some((entry) => entry.pattern === undefined)) return undefined;
  const command = (args as { command?: unknown } | undefined)?.command;
  if (typeof command !== 'string') return 'the bash call has no command';
  const line = splitShellCommands(command);
  if (line.opaque) {
    return `the command ${JSON.stringify(line.text)} runs commands that cannot be checked against them`;
  }
  const patterns = entries.map((entry) => entry.pattern as string);
  const outside = line.commands.find(
    (simple) => !patterns.some((pattern) => bashPatternMatches(pattern, simple)),
  );
  return outside === undefined
    ? undefined
    : `the command ${JSON.stringify(outside)} matches none of ${patterns.map((pattern) => `Bash(${pattern})`).join(', ')}`;
}

/** Claude Code's rule: `PREFIX:*` is the prefix and any words after it; `*` matches any text. */
export function bashPatternMatches(pattern: string, command: string): boolean {
  const normal = normaliseWhitespace(command);
  const prefix = /^([\s\S]*):\*$/.exec(pattern)?.[1];
  if (prefix !== undefined) {
    const wanted = normaliseWhitespace(prefix);
    return normal === wanted || normal.startsWith(`${wanted} `);
  }
  const parts = normaliseWhitespace(pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`).test(normal);
}
