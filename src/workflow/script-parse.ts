/**
 * The host-side pre-parse of a workflow script body: a plain script with top-level await and
 * top-level return, which neither imports nor exports (meta is a parameter, not a statement).
 * A body that cannot run becomes `SCRIPT_PARSE` with line:column and the offending line. It only
 * parses: it must never evaluate any part of the script. The parser (acorn) is loaded at the
 * first parse, so a start that runs no workflow never reads it.
 */
import type { Options, Program, Token } from 'acorn';
import { loadLibrary } from '../core/load-library.js';
import { WorkflowError } from './contract.js';
import { renderThrown } from './render-thrown.js';

let acorn: typeof import('acorn') | undefined;

/** The one acorn instance of every workflow parse (token types are compared by identity). */
export function acornParser(): typeof import('acorn') {
  acorn ??= loadLibrary('acorn');
  return acorn;
}

/** How a body is parsed: a plain script with top-level await and return. */
export const scriptOptions: Options = {
  ecmaVersion: 'latest',
  sourceType: 'script',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
  allowHashBang: true,
};

/** Excerpts wider than this show a window around the column. */
const EXCERPT_WIDTH = 120;

export function checkScriptBody(script: string): void {
  if (typeof script !== 'string' || script.trim() === '') {
    throw new WorkflowError(
      'SCRIPT_PARSE',
      'the workflow script is empty: it must be a JavaScript body ending in `return <json value>`',
    );
  }
  if (opensWithMetaExport(script)) {
    throw new WorkflowError(
      'SCRIPT_PARSE',
      'the workflow script opens with `export const meta = ...`, but meta is data, not code: ' +
        'pass it in the `meta` parameter and remove the statement from the script ' +
        '(`loom workflow run` reads such a header from the file automatically)',
    );
  }
  let program: Program;
  try {
    program = acornParser().parse(script, scriptOptions);
  } catch (error) {
    throw parseFailure(script, error);
  }
  const dynamicImport = findDynamicImport(program);
  if (dynamicImport !== undefined) throw importFailure(script, dynamicImport);
}

/** The first `count` tokens (the end-of-input token included); fewer when tokenizing fails. */
export function leadingTokens(source: string, count: number): Token[] {
  const { tokenizer, tokTypes } = acornParser();
  const tokens: Token[] = [];
  try {
    const reader = tokenizer(source, { ecmaVersion: 'latest', allowHashBang: true });
    while (tokens.length < count) {
      const token = reader.getToken();
      tokens.push(token);
      if (token.type === tokTypes.eof) break;
    }
  } catch {}
  return tokens;
}

/** True when the source opens, after whitespace, comments and `#!`, with `export const meta`. */
export function opensWithMetaExport(source: string): boolean {
  const words = leadingTokens(source, 3).map((token) => source.slice(token.start, token.end));
  return words.join(' ') === 'export const meta';
}

/** `line:column`, both counted from 1. */
export function positionAt(source: string, offset: number): string {
  const position = acornParser().getLineInfo(source, offset);
  return `${position.line}:${position.column + 1}`;
}

/** The line holding `offset` with a caret under it, indented for an error message. */
export function sourceExcerpt(source: string, offset: number): string {
  const position = acornParser().getLineInfo(source, offset);
  const lineText = source.split(/\r\n|[\r\n\u2028\u2029]/)[position.line - 1] ?? '';
  const from = Math.max(0, Math.min(position.column - EXCERPT_WIDTH / 2, lineText.length));
  const shown = lineText.slice(from, from + EXCERPT_WIDTH);
  const before = from > 0 ? '…' : '';
  const after = from + EXCERPT_WIDTH < lineText.length ? '…' : '';
  const gutter = String(position.line);
  const caretPadding = (before + lineText.slice(from, position.column)).replace(/[^\t]/g, ' ');
  return [
    `  ${gutter} | ${before}${shown}${after}`,
    `  ${' '.repeat(gutter.length)} | ${caretPadding}^`,
  ].join('\n');
}

function parseFailure(script: string, error: unknown): WorkflowError {
  const offset = (error as { pos?: unknown }).pos;
  if (!(error instanceof SyntaxError) || typeof offset !== 'number') {
    return new WorkflowError(
      'SCRIPT_PARSE',
      `the workflow script does not parse: ${renderThrown(error)}`,
      {
        cause: error,
      },
    );
  }
  if (/^(import|export)\b/.test(script.slice(offset, offset + 7))) {
    return importFailure(script, offset);
  }
  const reason = error.message.replace(/\s*\(\d+:\d+\)$/, '');
  return new WorkflowError(
    'SCRIPT_PARSE',
    `the workflow script does not parse at ${positionAt(script, offset)}: ${reason}\n` +
      sourceExcerpt(script, offset),
    { cause: error },
  );
}

function importFailure(script: string, offset: number): WorkflowError {
  const keyword = script.startsWith('export', offset) ? 'export' : 'import';
  return new WorkflowError(
    'SCRIPT_PARSE',
    `workflow scripts cannot import or export (\`${keyword}\` at ${positionAt(script, offset)}): ` +
      'a script is a plain body with top-level await that sees agent, parallel, pipeline, ' +
      `phase, log and args as globals\n${sourceExcerpt(script, offset)}`,
  );
}

function findDynamicImport(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = findDynamicImport(child);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const record = node as { type?: unknown; start?: unknown };
  if (record.type === 'ImportExpression' && typeof record.start === 'number') return record.start;
  for (const [key, child] of Object.entries(node)) {
    if (key === 'loc' || key === 'regex') continue;
    const found = findDynamicImport(child);
    if (found !== undefined) return found;
  }
  return undefined;
}
