/**
 * The `edit_file` tool: replaces an exact piece of text in a workspace file. The match must be
 * unique unless `replace_all` is set, so an edit never lands somewhere the model did not mean.
 * Must never change a file when the call is ambiguous or finds nothing.
 */
import type { z } from 'zod';
import { UserError } from '../base/errors.js';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { binaryFileError, changeOf, fileAccessOf, textLooksBinary } from './file-access.js';
import { statFileOrFolder } from './regular-file.js';
import { displayPath, resolveInWorkspace, type Workspace, workspaceOf } from './workspace.js';

export interface EditFileOptions {
  workspace: Workspace;
}

const schema = (zod: typeof z) =>
  zod.strictObject({
    path: zod
      .string()
      .min(1)
      .describe('The file to edit: relative to the workspace root, or an absolute path inside it.'),
    old_string: zod
      .string()
      .min(1)
      .describe('The exact text to replace, including whitespace and indentation.'),
    new_string: zod.string().describe('The text to put in its place; must differ from old_string.'),
    replace_all: zod
      .boolean()
      .optional()
      .describe('Replace every occurrence instead of requiring exactly one. Default false.'),
  });

export function editFileTool(options: EditFileOptions): ToolDefinition {
  return defineBuiltinTool({
    name: 'edit_file',
    description:
      'Replace exact text in a workspace file. old_string must match the file exactly (as ' +
      'read_file shows it, without the line-number prefix) and occur once, unless replace_all ' +
      'is true. Include enough surrounding lines to make the match unique. Use write_file to ' +
      'create a file.',
    arguments: schema,
    async execute(args, execution) {
      const workspace = workspaceOf(options.workspace, execution);
      if (args.old_string === args.new_string) {
        throw new UserError(
          'INVALID_ARGUMENT',
          'old_string and new_string are identical; nothing to change',
        );
      }
      const absolute = resolveInWorkspace(workspace, args.path, { mustExist: true });
      const shown = displayPath(workspace, absolute);
      if ((await statFileOrFolder(absolute, shown)).isDirectory()) {
        throw new UserError('INVALID_ARGUMENT', `${shown} is a directory, not a file`);
      }
      const files = fileAccessOf(execution);
      const file = { path: absolute, shown, signal: execution.signal };
      const before = await files.readText(file);
      const replaced = replaceIn(before, shown, args);
      await files.writeText({ ...file, content: replaced.text });
      const noun = replaced.occurrences === 1 ? 'occurrence' : 'occurrences';
      return {
        content: `replaced ${replaced.occurrences} ${noun} in ${shown}`,
        metadata: {
          path: shown,
          occurrences: replaced.occurrences,
          line: replaced.line,
          ...changeOf(before, replaced.text),
        },
      };
    },
  });
}

function replaceIn(
  text: string,
  shown: string,
  args: { old_string: string; new_string: string; replace_all?: boolean | undefined },
): { text: string; occurrences: number; line: number } {
  if (textLooksBinary(text)) throw binaryFileError(shown, 'edited');
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
  const line = (pieces[0] ?? '').split('\n').length;
  return { text: pieces.join(args.new_string), occurrences, line };
}
