/**
 * `loom init` and `/init`: the one prompt that asks the agent to explore the workspace and write
 * its AGENTS.md, and the check that refuses to replace an existing one unless forced. Its first
 * line stays stable, so a scripted model's rule can answer it (`"when": "^Write an AGENTS\\.md"`).
 * It reads whether the file is there; it never writes it (the agent does, with its tools).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const INIT_FILE = 'AGENTS.md';

/** The file's text, or undefined when there is none (a folder of that name counts as there). */
export function initFileText(workspace: string): string | undefined {
  const path = join(workspace, INIT_FILE);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  return stat.isFile() ? readFileSync(path, 'utf8') : '';
}

/** Why init must not run here (AGENTS.md exists and it was not forced), or undefined. */
export function initRefusal(
  workspace: string,
  options: { force: boolean; forceHint: string },
): string | undefined {
  if (options.force || initFileText(workspace) === undefined) return undefined;
  return `${join(workspace, INIT_FILE)} already exists; ${options.forceHint} replaces it (the agent reads it first and keeps what still holds)`;
}

export function initPrompt(options: { replacing: boolean }): string {
  return [
    `Write an ${INIT_FILE} for this repository: the instructions every later session here starts with.`,
    '',
    'First explore the workspace: list its files, read the README, the build and package files, the CI',
    'configuration and a few source and test files. Then write AGENTS.md at the workspace root with',
    'write_file. Keep it short and concrete, for an agent new to this code:',
    '- Commands: how to build, test (one test alone too), lint and run it, exactly as this repository does.',
    '- Layout: the main folders and what lives in each.',
    '- Conventions: code style, naming, how tests are written, what every change must respect.',
    'Write only what you found here, no generic advice. Where a CLAUDE.md, .cursorrules or',
    '.github/copilot-instructions.md exists, keep what it says that still holds.',
    ...(options.replacing
      ? [`${INIT_FILE} exists already: read it first, keep what is still right, and replace it.`]
      : []),
    `End with one line saying what you wrote.`,
  ].join('\n');
}
