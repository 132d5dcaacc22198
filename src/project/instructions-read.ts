/**
 * Reads a session's instructions: every file `findInstructionFiles` names, imports expanded, and
 * the text of the protected `instructions` prompt section made of them (personal first, the
 * nearest folder last, each under its path). A file that cannot be read, or an import refused, is
 * a problem line and the rest still loads. Never throws.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { errorMessage } from '../base/errors.js';
import {
  findInstructionFiles,
  type InstructionFile,
  type InstructionPlaces,
} from './instructions-files.js';
import { expandImports } from './instructions-imports.js';

export interface LoadedInstruction extends InstructionFile {
  /** With imports in place; never empty (an empty file is left out). */
  text: string;
}

export interface Instructions {
  files: LoadedInstruction[];
  /** Empty when no file has text. */
  section: string;
  /** What went wrong, one line each (a missing import, a cycle, an unreadable file). */
  problems: string[];
}

const PREAMBLE = [
  '# Instructions',
  "The person's own instructions and the repository's, each under the file it came from. Follow them;",
  'where two disagree, the later one (from the folder nearer the working directory) wins.',
].join('\n');

/** Paths inside the workspace as relative ones, others as they are: for problem lines. */
function shower(workspace: string): (path: string) => string {
  return (path) => {
    const way = relative(workspace, path);
    return way !== '' && !way.startsWith('..') && !isAbsolute(way) ? way : path;
  };
}

export function readInstructions(places: InstructionPlaces): Instructions {
  const show = shower(places.workspace);
  const files: LoadedInstruction[] = [];
  const problems: string[] = [];
  let found: InstructionFile[];
  try {
    found = findInstructionFiles(places);
  } catch (error) {
    return {
      files,
      section: '',
      problems: [`cannot look for instruction files: ${errorMessage(error)}`],
    };
  }
  for (const file of found) {
    let own: string;
    try {
      own = readFileSync(file.path, 'utf8').replace(/^\uFEFF/, '');
    } catch (error) {
      problems.push(`cannot read ${show(file.path)}: ${errorMessage(error)} (left out)`);
      continue;
    }
    const expanded = expandImports(file.path, own, { boundary: file.boundary, show });
    problems.push(...expanded.problems);
    const text = expanded.text.trim();
    if (text !== '') files.push({ ...file, text });
  }
  return { files, section: instructionsSection(files), problems };
}

export function instructionsSection(files: readonly LoadedInstruction[]): string {
  if (files.length === 0) return '';
  return [PREAMBLE, ...files.map((file) => `Instructions from: ${file.path}\n\n${file.text}`)].join(
    '\n\n',
  );
}
