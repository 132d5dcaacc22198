/**
 * What a tool hook reads about its call, in the words of where it was written: a hook of
 * `.claude/` gets Claude Code's tool name and argument names (`Bash {command, timeout}`, `Read
 * {file_path}`, a path made absolute as Claude Code's are) and a `tool_response` with Claude
 * Code's fields for the common tools; a hook of config.yaml gets Loom's names and arguments as
 * they are. Every `tool_response` has `content` (the text the model sees) and `is_error`. Pure.
 */
import { isAbsolute, resolve } from 'node:path';
import { claudeToolName, claudeToolNames } from './claude-tool-names.js';
import type { HookOrigin } from './hook-contract.js';

/** Loom's argument names that Claude Code's tools call otherwise, by Loom's tool. */
const CLAUDE_ARGUMENTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  bash: { timeout_ms: 'timeout' },
  read_file: { path: 'file_path' },
  write_file: { path: 'file_path' },
  edit_file: { path: 'file_path' },
  grep: { ignore_case: '-i', max_results: 'head_limit' },
  subagent: { agent_type: 'subagent_type' },
};

/** The names a matcher is tested against: Loom's own, and for `.claude/` Claude Code's too. */
export function toolNamesFor(origin: HookOrigin, tool: string): string[] {
  return origin === 'claude' ? [...claudeToolNames(tool), tool] : [tool];
}

export function toolNameFor(origin: HookOrigin, tool: string): string {
  return origin === 'claude' ? claudeToolName(tool) : tool;
}

export function toolInputFor(
  origin: HookOrigin,
  tool: string,
  args: unknown,
  cwd: string,
): unknown {
  if (origin !== 'claude' || typeof args !== 'object' || args === null || Array.isArray(args)) {
    return args;
  }
  const renames = CLAUDE_ARGUMENTS[tool] ?? {};
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const renamed = renames[name] ?? name;
    input[renamed] =
      renamed === 'file_path' && typeof value === 'string' && !isAbsolute(value)
        ? resolve(cwd, value)
        : value;
  }
  return input;
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
  errorCode?: string;
}

export function toolResponseFor(
  origin: HookOrigin,
  tool: string,
  input: unknown,
  result: ToolOutcome,
): Record<string, unknown> {
  const response: Record<string, unknown> = { content: result.content, is_error: result.isError };
  if (origin !== 'claude') return response;
  const filePath = (input as { file_path?: unknown } | null)?.file_path;
  switch (tool) {
    case 'bash':
      return {
        ...response,
        stdout: result.content,
        stderr: '',
        interrupted: result.errorCode === 'ABORTED' || result.errorCode === 'TOOL_TIMEOUT',
        isImage: false,
      };
    case 'read_file':
    case 'write_file':
    case 'edit_file':
      return { ...response, filePath, success: !result.isError };
    default:
      return response;
  }
}
