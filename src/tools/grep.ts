/**
 * The `grep` tool: searches file contents in the workspace with a JavaScript regular expression,
 * in process (no external ripgrep), skipping binary files, node_modules and .git. Output is
 * `file:line: text`, capped in matches and line length. Must never read outside the workspace.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { z } from 'zod';
import { errorMessage, UserError } from '../base/errors.js';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { compileGlob } from './compile-glob.js';
import { containsNulByte } from './is-binary-file.js';
import { notRegularFile, openRegularFile } from './regular-file.js';
import { type WalkedFile, walkFiles } from './walk-files.js';
import { displayPath, readingWorkspace, resolveInWorkspace, type Workspace } from './workspace.js';

export interface GrepOptions {
  workspace: Workspace;
  /** Matches listed when the call gives no `max_results`. Default 200. */
  defaultMaxResults?: number;
  /** Matched lines are cut to this many characters. Default 300. */
  maxLineCharacters?: number;
  /** Larger files are skipped. Default 10 MiB. */
  maxFileBytes?: number;
  /** Folder names never entered. Default node_modules and .git. */
  skipFolders?: readonly string[];
}

const schema = (zod: typeof z) =>
  zod.strictObject({
    pattern: zod
      .string()
      .min(1)
      .describe('JavaScript regular expression to search for, e.g. "function\\s+load".'),
    path: zod
      .string()
      .min(1)
      .optional()
      .describe('File or folder to search, relative to the workspace root. Default the root.'),
    glob: zod
      .string()
      .min(1)
      .optional()
      .describe(
        'Only files matching this glob: "*.ts" (without "/": names in any folder) or ' +
          '"src/**/*.test.ts" (the path).',
      ),
    ignore_case: zod.boolean().optional().describe('Match letters of either case. Default false.'),
    max_results: zod
      .number()
      .int()
      .min(1)
      .max(5000)
      .optional()
      .describe('Most matching lines to return. Default 200.'),
  });

export function grepTool(options: GrepOptions): ToolDefinition {
  const defaultMaxResults = options.defaultMaxResults ?? 200;
  const maxLineCharacters = options.maxLineCharacters ?? 300;
  const maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
  return defineBuiltinTool({
    name: 'grep',
    description:
      'Search file contents with a JavaScript regular expression. Returns matching lines as ' +
      '`file:line: text`, in path order, up to max_results. Filter files with `glob`; narrow ' +
      'with `path`. Skips binary files, node_modules and .git.',
    arguments: schema,
    concurrencySafe: true,
    async execute(args, execution) {
      const workspace = readingWorkspace(options.workspace, execution);
      const expression = compileExpression(args.pattern, args.ignore_case ?? false);
      const maxResults = args.max_results ?? defaultMaxResults;
      const target = resolveInWorkspace(workspace, args.path ?? '.', { mustExist: true });
      const accepts = fileFilter(args.glob);
      const found: string[] = [];
      let capped = false;
      for await (const file of filesToSearch(
        target,
        displayPath(workspace, target),
        options.skipFolders,
        execution.signal,
      )) {
        execution.signal.throwIfAborted();
        if (!accepts(file.relativePath)) continue;
        const text = await readSearchable(file.absolutePath, maxFileBytes);
        if (text === undefined) continue;
        const shown = displayPath(workspace, file.absolutePath);
        const lines = text.split(/\r?\n/);
        for (let index = 0; index < lines.length && !capped; index += 1) {
          const line = lines[index] as string;
          if (!expression.test(line)) continue;
          if (found.length === maxResults) capped = true;
          else found.push(`${shown}:${index + 1}: ${cutLine(line, maxLineCharacters)}`);
        }
        if (capped) break;
      }
      if (found.length === 0) return `no matches for ${args.pattern}`;
      if (capped) {
        found.push(`… stopped after ${maxResults} matches; narrow the pattern, path or glob`);
      }
      return { content: found.join('\n'), metadata: { matches: found.length, capped } };
    },
  });
}

function compileExpression(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `invalid regular expression ${JSON.stringify(pattern)}: ${errorMessage(error)}`,
    );
  }
}

function fileFilter(glob: string | undefined): (relativePath: string) => boolean {
  if (glob === undefined) return () => true;
  const matcher = compileGlob(glob);
  if (glob.includes('/')) return (relativePath) => matcher.test(relativePath);
  return (relativePath) => matcher.test(basename(relativePath));
}

async function* filesToSearch(
  target: string,
  shown: string,
  skipFolders: readonly string[] | undefined,
  signal: AbortSignal,
): AsyncGenerator<WalkedFile> {
  const stats = await stat(target);
  if (stats.isFile()) {
    yield { absolutePath: target, relativePath: basename(target) };
    return;
  }
  if (!stats.isDirectory()) throw notRegularFile(shown, stats);
  yield* walkFiles(target, { signal, skipFolders });
}

/** The text of a regular file within the size cap; undefined for anything else. */
async function readSearchable(path: string, maxFileBytes: number): Promise<string | undefined> {
  const handle = await openRegularFile(path, path).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    if ((await handle.stat()).size > maxFileBytes) return undefined;
    const bytes = await handle.readFile();
    return containsNulByte(bytes) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

function cutLine(line: string, maxCharacters: number): string {
  if (line.length <= maxCharacters) return line;
  return `${line.slice(0, maxCharacters)}… [${line.length - maxCharacters} more characters]`;
}
