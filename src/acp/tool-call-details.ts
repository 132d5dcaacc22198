/**
 * What an ACP client shows of a tool call beyond its title: the files it touches (`locations`,
 * absolute, with a 1-based line where one is known), the change an edit made (`diff` content
 * from the tool's `change` metadata) and the terminal a command ran in. Pure: it reads a call's
 * arguments and result and never opens a file.
 */
import { isAbsolute, resolve } from 'node:path';
import type { ToolCallContent, ToolCallLocation } from '@agentclientprotocol/sdk';

const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit_file']);

/** What the ACP session learnt of a call while it ran, beyond its logged result. */
export interface ToolCallExtras {
  /** The result's metadata (not logged, so absent on replay). */
  metadata?: Record<string, unknown>;
  /** The client terminal the command ran in. */
  terminalId?: string;
}

function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function absolutePathOf(cwd: string, path: unknown): string | undefined {
  if (typeof path !== 'string' || path.trim() === '') return undefined;
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/** The file a file tool's call names, as the client sees it; undefined for other tools. */
export function filePathOf(name: string, input: unknown, cwd: string): string | undefined {
  if (!FILE_TOOLS.has(name)) return undefined;
  return absolutePathOf(cwd, fieldsOf(input).path);
}

/** Where a call is about to work: the file a file tool names, at `offset` for read_file. */
export function callLocationsOf(name: string, input: unknown, cwd: string): ToolCallLocation[] {
  const path = filePathOf(name, input, cwd);
  if (path === undefined) return [];
  const offset = fieldsOf(input).offset;
  if (name === 'read_file') return [{ path, line: typeof offset === 'number' ? offset : 1 }];
  return [{ path }];
}

/** Where a finished call worked: its file, at the first line an edit changed when known. */
export function resultLocationsOf(
  name: string,
  input: unknown,
  cwd: string,
  extras: ToolCallExtras,
): ToolCallLocation[] {
  const path = filePathOf(name, input, cwd);
  if (path === undefined) return [];
  const line = extras.metadata?.line ?? extras.metadata?.firstLine;
  return [typeof line === 'number' ? { path, line } : { path }];
}

/** The content blocks a client shows before the result's text: the terminal, then the diff. */
export function resultDetailsOf(
  name: string,
  input: unknown,
  cwd: string,
  extras: ToolCallExtras,
): ToolCallContent[] {
  const details: ToolCallContent[] = [];
  if (extras.terminalId !== undefined)
    details.push({ type: 'terminal', terminalId: extras.terminalId });
  const path = filePathOf(name, input, cwd);
  const change = fieldsOf(extras.metadata?.change);
  if (path !== undefined && typeof change.newText === 'string') {
    const oldText = typeof change.oldText === 'string' ? change.oldText : null;
    details.push({ type: 'diff', path, oldText, newText: change.newText });
  }
  return details;
}
