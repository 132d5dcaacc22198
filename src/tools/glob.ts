/**
 * The `glob` tool: lists workspace files whose path matches a glob pattern, newest first, with
 * a cap on how many are shown. Walks in process (skipping node_modules and .git, never following
 * symbolic links); must never list anything outside the workspace.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { UserError } from '../base/errors.js';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { compileGlob, splitGlobBase } from './compile-glob.js';
import { walkFiles } from './walk-files.js';
import { displayPath, readingWorkspace, resolveInWorkspace, type Workspace } from './workspace.js';

export interface GlobOptions {
  workspace: Workspace;
  /** Most files listed in one result. Default 200. */
  maxResults?: number;
  /** Folder names never entered. Default node_modules and .git. */
  skipFolders?: readonly string[];
}

const schema = (zod: typeof z) =>
  zod.strictObject({
    pattern: zod
      .string()
      .min(1)
      .describe('Matched against paths relative to `path`, e.g. "**/*.ts" or "src/{a,b}/*.json".'),
    path: zod
      .string()
      .min(1)
      .optional()
      .describe('Folder to search, relative to the workspace root; default the root.'),
  });

export function globTool(options: GlobOptions): ToolDefinition {
  const maxResults = options.maxResults ?? 200;
  return defineBuiltinTool({
    name: 'glob',
    description:
      'Find files by path pattern. Supports `**` (any folders), `*` and `?` (within one name), ' +
      '`[abc]`/`[!abc]` classes and `{a,b}` alternatives. "*.ts" matches only the top folder; ' +
      `use "**/*.ts" for every folder. Returns up to ${maxResults} paths, most recently ` +
      'modified first. Skips node_modules and .git.',
    arguments: schema,
    concurrencySafe: true,
    async execute(args, execution) {
      const workspace = readingWorkspace(options.workspace, execution);
      const searchRoot = resolveInWorkspace(workspace, args.path ?? '.', {
        mustExist: true,
      });
      if (!(await stat(searchRoot)).isDirectory()) {
        throw new UserError('INVALID_ARGUMENT', `${args.path} is not a directory`);
      }
      const { base, rest } = splitGlobBase(args.pattern);
      const start =
        base === '' ? searchRoot : resolveInWorkspace(workspace, resolve(searchRoot, base));
      const startStats = await stat(start).catch(() => undefined);
      const matches: Array<{ path: string; modified: number }> = [];
      if (startStats?.isDirectory()) {
        const matcher = compileGlob(rest);
        const walk = walkFiles(start, {
          signal: execution.signal,
          skipFolders: options.skipFolders,
        });
        for await (const file of walk) {
          if (!matcher.test(file.relativePath)) continue;
          const modified = (await stat(file.absolutePath).catch(() => undefined))?.mtimeMs ?? 0;
          matches.push({ path: displayPath(workspace, file.absolutePath), modified });
        }
      }
      if (matches.length === 0) return `no files match ${args.pattern}`;
      matches.sort(
        (left, right) => right.modified - left.modified || (left.path < right.path ? -1 : 1),
      );
      const shown = matches.slice(0, maxResults).map((match) => match.path);
      if (matches.length > maxResults) {
        shown.push(
          `… ${matches.length - maxResults} more files not shown; narrow the pattern or path`,
        );
      }
      return { content: shown.join('\n'), metadata: { matches: matches.length } };
    },
  });
}
