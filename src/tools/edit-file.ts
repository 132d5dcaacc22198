/**
 * The `edit_file` tool: replaces an exact piece of text in a workspace file. The match must be
 * unique unless `replace_all` is set, so an edit never lands somewhere the model did not mean.
 * Must never change a file when the call is ambiguous or finds nothing.
 */
import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { UserError } from '../core/errors.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { containsNulByte } from './is-binary-file.js';
import { openRegularFile, statFileOrFolder, writeRegularFile } from './regular-file.js';
import { displayPath, resolveInWorkspace, type Workspace } from './workspace.js';

export interface EditFileOptions {
  workspace: Workspace;
}

const schema = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('The file to edit: relative to the workspace root, or an absolute path inside it.'),
  old_string: z
    .string()
    .min(1)
    .describe('The exact text to replace, including whitespace and indentation.'),
  new_string: z.string().describe('The text to put in its place; must differ from old_string.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence instead of requiring exactly one. Default false.'),
});

export function editFileTool(options: EditFileOptions): ToolDefinition {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace exact text in a workspace file. old_string must match the file exactly (as ' +
      'read_file shows it, without the line-number prefix) and occur once, unless replace_all ' +
      'is true. Include enough surrounding lines to make the match unique. Use write_file to ' +
      'create a file.',
    schema,
    async execute(args, execution) {
      if (args.old_string === args.new_string) {
        throw new UserError(
          'INVALID_ARGUMENT',
          'old_string and new_string are identical; nothing to change',
        );
      }
      const absolute = resolveInWorkspace(options.workspace, args.path, { mustExist: true });
      const shown = displayPath(options.workspace, absolute);
      if ((await statFileOrFolder(absolute, shown)).isDirectory()) {
        throw new UserError('INVALID_ARGUMENT', `${shown} is a directory, not a file`);
      }
      const handle = await openRegularFile(absolute, shown);
      let bytes: Buffer;
      try {
        bytes = await handle.readFile({ signal: execution.signal });
      } finally {
        await handle.close();
      }
      const replaced = replaceIn(bytes, shown, args);
      await writeRegularFile(absolute, shown, replaced.text, execution.signal);
      const noun = replaced.occurrences === 1 ? 'occurrence' : 'occurrences';
      return {
        content: `replaced ${replaced.occurrences} ${noun} in ${shown}`,
        metadata: { path: shown, occurrences: replaced.occurrences },
      };
    },
  });
}

function replaceIn(
  bytes: Buffer,
  shown: string,
  args: { old_string: string; new_string: string; replace_all?: boolean | undefined },
): { text: string; occurrences: number } {
  if (containsNulByte(bytes)) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `${shown} is a binary file; it cannot be edited as text`,
    );
  }
  const text = bytes.toString('utf8');
  const pieces = text.split(args.old_string);
  const occurrences = pieces.length - 1;
  if (occurrences === 0) {
    throw new UserError('INVALID_ARGUMENT', `old_string was not found in ${shown}`);
  }
  if (occurrences > 1 && !args.replace_all) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `old_string occurs ${occurrences} times in ${shown}; add surrounding context to make ` +
        'it unique, or set replace_all to true to replace every occurrence',
    );
  }
  return { text: pieces.join(args.new_string), occurrences };
}
