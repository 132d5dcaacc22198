/**
 * The `write_file` tool: creates or replaces a whole file in the workspace, making its parent
 * folders as needed. Must never write outside the workspace or over a folder.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { UserError } from '../core/errors.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { statFileOrFolder, writeRegularFile } from './regular-file.js';
import { displayPath, resolveInWorkspace, type Workspace } from './workspace.js';

export interface WriteFileOptions {
  workspace: Workspace;
}

const schema = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('The file to write: relative to the workspace root, or an absolute path inside it.'),
  content: z.string().describe('The complete new content of the file.'),
});

export function writeFileTool(options: WriteFileOptions): ToolDefinition {
  return defineTool({
    name: 'write_file',
    description:
      'Write a file in the workspace, replacing all of its content; missing parent folders are ' +
      'created. Prefer edit_file for changing part of an existing file. Read a file before ' +
      'overwriting it.',
    schema,
    async execute(args, execution) {
      const absolute = resolveInWorkspace(options.workspace, args.path);
      const shown = displayPath(options.workspace, absolute);
      const existing = await statFileOrFolder(absolute, shown).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      });
      if (existing?.isDirectory()) {
        throw new UserError('INVALID_ARGUMENT', `${shown} is a directory; give a file path`);
      }
      await mkdir(dirname(absolute), { recursive: true });
      const bytes = Buffer.byteLength(args.content);
      await writeRegularFile(absolute, shown, args.content, execution.signal);
      const how = existing ? 'overwrote existing file' : 'created';
      return {
        content: `wrote ${bytes} bytes to ${shown} (${how})`,
        metadata: { path: shown, bytes, created: !existing },
      };
    },
  });
}
