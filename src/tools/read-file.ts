/**
 * The `read_file` tool: a window of numbered lines from a text file in the workspace, with caps
 * on line length and on total output so one call cannot flood the context. Must never return
 * a binary file's bytes or anything outside the workspace; an image file is an image result
 * (read-image.ts), whose bytes go to the blob store, never into the text.
 */
import type { z } from 'zod';
import { UserError } from '../base/errors.js';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { fileAccessOf } from './file-access.js';
import { readImageFile } from './read-image.js';
import { statFileOrFolder } from './regular-file.js';
import { displayPath, readingWorkspace, resolveInWorkspace, type Workspace } from './workspace.js';

export interface ReadFileOptions {
  workspace: Workspace;
  /** Lines returned when the call gives no `limit`. Default 2000. */
  defaultLineLimit?: number;
  /** Cap on the bytes of one result. Default 256 KiB. */
  maxOutputBytes?: number;
  /** Longer lines are cut with a note. Default 2000 characters. */
  maxLineCharacters?: number;
}

const schema = (zod: typeof z) =>
  zod.strictObject({
    path: zod
      .string()
      .min(1)
      .describe('The file to read: relative to the workspace root, or an absolute path inside it.'),
    offset: zod
      .number()
      .int()
      .min(1)
      .optional()
      .describe('1-based line number to start reading from. Default 1.'),
    limit: zod
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Maximum number of lines to return. Default 2000.'),
  });

export function readFileTool(options: ReadFileOptions): ToolDefinition {
  const defaultLineLimit = options.defaultLineLimit ?? 2000;
  const maxOutputBytes = options.maxOutputBytes ?? 256 * 1024;
  const maxLineCharacters = options.maxLineCharacters ?? 2000;
  return defineBuiltinTool({
    name: 'read_file',
    description:
      'Read a text file from the workspace. Returns numbered lines ("   12\\tcontent"); line ' +
      'numbers are for reference only and are not part of the file. Reads up to ' +
      `${defaultLineLimit} lines by default; use offset and limit to page through long files. ` +
      'A PNG, JPEG, GIF or WebP file is returned as the image itself (described in words to a ' +
      'model that takes no images). Fails on folders (use glob) and other binary files.',
    arguments: schema,
    concurrencySafe: true,
    async execute(args, execution) {
      const workspace = readingWorkspace(options.workspace, execution);
      const absolute = resolveInWorkspace(workspace, args.path, { mustExist: true });
      const shown = displayPath(workspace, absolute);
      if ((await statFileOrFolder(absolute, shown)).isDirectory()) {
        throw new UserError('INVALID_ARGUMENT', `${shown} is a directory; use glob to list files`);
      }
      const image = await readImageFile(absolute, shown, execution);
      if (image) return image;
      const offset = args.offset ?? 1;
      const limit = args.limit ?? defaultLineLimit;
      const lines = fileAccessOf(execution).readLines({
        path: absolute,
        shown,
        signal: execution.signal,
      });
      const window = await readWindow(lines, {
        offset,
        limit,
        maxOutputBytes,
        maxLineCharacters,
      });
      if (window.totalLines === 0) return `${shown} is empty`;
      if (window.lines.length === 0) {
        throw new UserError(
          'INVALID_ARGUMENT',
          `offset ${offset} is past the end of ${shown} (${window.totalLines} lines)`,
        );
      }
      const lastLine = offset + window.lines.length - 1;
      const remaining = window.totalLines - lastLine;
      const notes: string[] = [];
      if (remaining > 0) {
        const reason = window.byteCapped ? `output reached the ${maxOutputBytes}-byte cap; ` : '';
        notes.push(`… ${reason}${remaining} more lines; call again with offset ${lastLine + 1}`);
      }
      return {
        content: [...window.lines, ...notes].join('\n'),
        metadata: { path: shown, firstLine: offset, lastLine, totalLines: window.totalLines },
      };
    },
  });
}

interface WindowRequest {
  offset: number;
  limit: number;
  maxOutputBytes: number;
  maxLineCharacters: number;
}

/** Counts every line of `source` and keeps the requested window under the caps. */
async function readWindow(
  source: AsyncIterable<string>,
  request: WindowRequest,
): Promise<{ lines: string[]; totalLines: number; byteCapped: boolean }> {
  const lines: string[] = [];
  let totalLines = 0;
  let bytes = 0;
  let collecting = true;
  let byteCapped = false;
  for await (const line of source) {
    totalLines += 1;
    if (!collecting || totalLines < request.offset) continue;
    if (lines.length >= request.limit) {
      collecting = false;
      continue;
    }
    const rendered = renderLine(totalLines, line, request.maxLineCharacters);
    const size = Buffer.byteLength(rendered) + 1;
    if (lines.length > 0 && bytes + size > request.maxOutputBytes) {
      collecting = false;
      byteCapped = true;
      continue;
    }
    lines.push(rendered);
    bytes += size;
  }
  return { lines, totalLines, byteCapped };
}

function renderLine(lineNumber: number, line: string, maxCharacters: number): string {
  const number = String(lineNumber).padStart(5);
  if (line.length <= maxCharacters) return `${number}\t${line}`;
  const cut = line.length - maxCharacters;
  return `${number}\t${line.slice(0, maxCharacters)}… [line cut: ${cut} more characters]`;
}
