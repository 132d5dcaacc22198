/**
 * The `write_file` tool: creates or replaces a whole file in the workspace, making its parent
 * folders as needed. Must never write outside the workspace or over a folder.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { UserError } from '../base/errors.js';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { changeOf, fileAccessOf, maximumChangeBytes } from './file-access.js';
import { statFileOrFolder } from './regular-file.js';
import { displayPath, resolveInWorkspace, type Workspace, workspaceOf } from './workspace.js';

export interface WriteFileOptions {
  workspace: Workspace;
}

const schema = (zod: typeof z) =>
  zod.strictObject({
    path: zod
      .string()
      .min(1)
      .describe(
        'The file to write: relative to the workspace root, or an absolute path inside it.',
      ),
    content: zod.string().describe('The complete new content of the file.'),
  });

export function writeFileTool(options: WriteFileOptions): ToolDefinition {
  return defineBuiltinTool({
    name: 'write_file',
    description:
      'Write a file in the workspace, replacing all of its content; missing parent folders are ' +
      'created. Prefer edit_file for changing part of an existing file. Read a file before ' +
      'overwriting it.',
    arguments: schema,
    async execute(args, execution) {
      const workspace = workspaceOf(options.workspace, execution);
      const absolute = resolveInWorkspace(workspace, args.path);
      const shown = displayPath(workspace, absolute);
      const existing = await statFileOrFolder(absolute, shown).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      });
      if (existing?.isDirectory()) {
        throw new UserError('INVALID_ARGUMENT', `${shown} is a directory; give a file path`);
      }
      await mkdir(dirname(absolute), { recursive: true });
      const bytes = Buffer.byteLength(args.content);
      const files = fileAccessOf(execution);
      const file = { path: absolute, shown, signal: execution.signal };
      // Only for the change shown to the user: a file it cannot read is still written.
      const before =
        existing && existing.size <= maximumChangeBytes
          ? await files.readText(file).catch(() => undefined)
          : undefined;
      await files.writeText({ ...file, content: args.content });
      const how = existing ? 'overwrote existing file' : 'created';
      return {
        content: `wrote ${bytes} bytes to ${shown} (${how})`,
        metadata: {
          path: shown,
          bytes,
          created: !existing,
          ...(existing === undefined ? changeOf(null, args.content) : {}),
          ...(before !== undefined ? changeOf(before, args.content) : {}),
        },
      };
    },
  });
}
