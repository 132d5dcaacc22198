/**
 * One instruction file's text with its imports in place: a line that is only `@path` (outside a
 * fenced code block) is replaced by that file's text, its own imports expanded too. A path is
 * relative to the file that imports it and must stay inside the file's boundary (the repository
 * root, or `$LOOM_HOME` for the person's file), also through symbolic links; imports go at most
 * `MAX_IMPORT_DEPTH` levels deep; a cycle is refused. A refused or missing import is a problem
 * (a line naming the files) and its line stays as written: the rest still loads. Never throws.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { errorMessage } from '../base/errors.js';

/** Levels of imports below a file found in a folder (Claude Code's limit too). */
export const MAX_IMPORT_DEPTH = 5;

const IMPORT_LINE = /^[ \t]*@(\S+)[ \t]*$/;
/** A quick test for any line that may be an import (fences are not looked at here). */
const ANY_IMPORT = /^[ \t]*@\S/m;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

export interface ExpandedFile {
  text: string;
  /** One line each, naming the importing file and what was refused or missing. */
  problems: string[];
}

export interface ExpandOptions {
  /** Imports must resolve inside this folder. */
  boundary: string;
  /** How a path is shown in a problem. */
  show(path: string): string;
}

interface Step {
  /** As reached (imports inside it resolve from here). */
  path: string;
  /** With links resolved: what a cycle is found by. */
  real: string;
}

interface Expansion extends ExpandOptions {
  realBoundary: string;
  problems: string[];
}

function realPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function inside(folder: string, path: string): boolean {
  const way = relative(folder, path);
  return way === '' || (!way.startsWith('..') && !isAbsolute(way));
}

function textOf(path: string): string {
  const text = readFileSync(path, 'utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `text` is the file's own (already read); its imports are read here. */
export function expandImports(path: string, text: string, options: ExpandOptions): ExpandedFile {
  // Most files import nothing: they cost no further file system call.
  if (!ANY_IMPORT.test(text)) return { text, problems: [] };
  const expansion: Expansion = {
    ...options,
    realBoundary: realPath(options.boundary),
    problems: [],
  };
  const expanded = expand(text, [{ path, real: realPath(path) }], expansion);
  return { text: expanded, problems: expansion.problems };
}

function expand(text: string, chain: readonly Step[], expansion: Expansion): string {
  let fence: string | undefined;
  const lines = text.split(/\r?\n/).map((line) => {
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return line;
    }
    const reference = fence === undefined ? IMPORT_LINE.exec(line)?.[1] : undefined;
    if (reference === undefined) return line;
    return imported(reference, chain, expansion) ?? line;
  });
  return lines.join('\n');
}

/** The text that replaces the `@reference` line, or undefined (a problem noted) to keep it. */
function imported(
  reference: string,
  chain: readonly Step[],
  expansion: Expansion,
): string | undefined {
  const { show, boundary, problems } = expansion;
  const from = chain.at(-1) as Step;
  const where = `${show(from.path)}: @${reference}`;
  const target = resolve(dirname(from.path), reference);
  const outside = () => {
    problems.push(`${where} is outside ${show(boundary)}; imports stay inside it (left out)`);
    return undefined;
  };
  if (!inside(boundary, target)) return outside();
  const stat = statSync(target, { throwIfNoEntry: false });
  if (!stat) {
    problems.push(`${where}: no such file ${show(target)} (left out)`);
    return undefined;
  }
  if (!stat.isFile()) {
    problems.push(`${where}: ${show(target)} is not a file (left out)`);
    return undefined;
  }
  const real = realPath(target);
  if (!inside(expansion.realBoundary, real)) return outside();
  const start = chain.findIndex((step) => step.real === real);
  if (start >= 0) {
    const cycle = [...chain.slice(start), { path: target, real }].map((step) => show(step.path));
    problems.push(`import cycle refused: ${cycle.join(' → ')} (${where} left out)`);
    return undefined;
  }
  if (chain.length > MAX_IMPORT_DEPTH) {
    const path = [...chain, { path: target, real }].map((step) => show(step.path));
    problems.push(
      `${where}: imports go at most ${MAX_IMPORT_DEPTH} levels deep (${path.join(' → ')}); left out`,
    );
    return undefined;
  }
  let text: string;
  try {
    text = textOf(target);
  } catch (error) {
    problems.push(`${where}: cannot read ${show(target)}: ${errorMessage(error)} (left out)`);
    return undefined;
  }
  return expand(text, [...chain, { path: target, real }], expansion).trimEnd();
}
