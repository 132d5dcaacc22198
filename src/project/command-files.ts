/**
 * Reads the custom commands of a workspace and of the person: every `*.md` under
 * `.loom/commands/`, `.claude/commands/` and `$LOOM_HOME/commands/` (sub-folders give
 * `group:name`), in that precedence. Front matter is optional; `description`, `argument-hint`,
 * `model` and `allowed-tools` are read, anything else is reported as unread. A field Loom cannot
 * honour makes the command refuse to run, saying why; a file it cannot read at all is left out.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../base/errors.js';
import { parseAllowedTools } from './command-allowed-tools.js';
import type { CommandCatalog, CustomCommand, HiddenCommand } from './command-contract.js';
import { FieldReader, readFrontMatterFile, type SetupProblem } from './markdown-front-matter.js';
import { type SetupFolder, setupFolders } from './project-folders.js';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const KNOWN_FIELDS = new Set(['description', 'argument-hint', 'model', 'allowed-tools']);
/** How deep sub-folders are read. */
const MAX_DEPTH = 4;

export function loadCommands(where: { workspace: string; home: string }): CommandCatalog {
  const problems: SetupProblem[] = [];
  const hidden: HiddenCommand[] = [];
  const byName = new Map<string, CustomCommand>();
  for (const folder of setupFolders('commands', where)) {
    if (!existsSync(folder.path)) continue;
    for (const { file, segments } of markdownFiles(folder.path, [], problems)) {
      const name = segments.join(':');
      if (!segments.every((segment) => SEGMENT.test(segment))) {
        problems.push({
          file,
          message: `${JSON.stringify(name)} is not a command name (letters, digits, _ . - and a sub-folder for group:name); the command is left out`,
        });
        continue;
      }
      const command = readCommand(file, name, folder, problems);
      if (!command) continue;
      const earlier = byName.get(name);
      if (earlier) hidden.push({ name, file, hiddenBy: earlier.file });
      else byName.set(name, command);
    }
  }
  const sorted = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return { list: () => [...sorted], find: (name) => byName.get(name), problems, hidden };
}

function markdownFiles(
  folder: string,
  segments: string[],
  problems: SetupProblem[],
): Array<{ file: string; segments: string[] }> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    problems.push({ file: folder, message: `cannot be listed: ${errorMessage(error)}` });
    return [];
  }
  const found: Array<{ file: string; segments: string[] }> = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && segments.length < MAX_DEPTH) {
      found.push(...markdownFiles(path, [...segments, entry.name], problems));
    } else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.md')) {
      found.push({ file: path, segments: [...segments, entry.name.slice(0, -3)] });
    }
  }
  return found;
}

function readCommand(
  file: string,
  name: string,
  folder: SetupFolder,
  problems: SetupProblem[],
): CustomCommand | undefined {
  const parsed = readFrontMatterFile(file, 'command', problems);
  if (!parsed) return undefined;
  const fields = new FieldReader(file, parsed.fields, parsed.lines, parsed.written);
  const body = parsed.body.trim();
  const description = fields.text('description')?.trim() || firstLine(body) || `/${name}`;
  // Claude Code's `argument-hint: [issue-number]` is a YAML list; it is shown as written.
  const argumentHint = fields.has('argument-hint') ? fields.written('argument-hint') : undefined;
  for (const unknown of fields.unknown(KNOWN_FIELDS)) {
    fields.problem(
      unknown,
      `is not a field Loom reads (${[...KNOWN_FIELDS].join(', ')}); left unread`,
    );
  }
  problems.push(...fields.take());
  // What follows makes the command refuse to run when wrong: it would change what its turn may do.
  const writtenModel = fields.text('model')?.trim();
  const model = writtenModel === undefined ? undefined : modelSpecOf(writtenModel);
  if (typeof model === 'object') fields.problem('model', model.problem);
  let allowedTools: CustomCommand['allowedTools'];
  if (fields.has('allowed-tools')) {
    const allowed = parseAllowedTools(fields.raw('allowed-tools'));
    if ('problem' in allowed) fields.problem('allowed-tools', allowed.problem);
    else allowedTools = allowed;
  }
  const unusable = fields.take();
  for (const problem of unusable) {
    problems.push({
      ...problem,
      message: `${problem.message}; /${name} refuses to run until it is fixed`,
    });
  }
  const [first] = unusable;
  return {
    name,
    description,
    ...(argumentHint ? { argumentHint } : {}),
    ...(typeof model === 'string' ? { model } : {}),
    ...(allowedTools ? { allowedTools } : {}),
    body,
    file,
    origin: folder.origin,
    ...(first
      ? { problem: `${first.file}${first.line ? `:${first.line}` : ''}: ${first.message}` }
      : {}),
  };
}

/**
 * A Loom model spec for `model:`: `provider:model` as written, Claude Code's `claude-…` ids as
 * `anthropic:…`, `inherit` as none. Claude Code's aliases (`sonnet`) name no model Loom knows.
 */
export function modelSpecOf(written: string): string | undefined | { problem: string } {
  if (written === '' || written === 'inherit') return undefined;
  if (written.includes(':')) return written;
  if (written.startsWith('claude-')) return `anthropic:${written}`;
  return {
    problem: `${JSON.stringify(written)} is not a model spec: write provider:model (such as anthropic:claude-sonnet-4-5 or deepseek:deepseek-chat), or remove the field to use the session's model`,
  };
}

function firstLine(text: string): string | undefined {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '');
  if (line === undefined) return undefined;
  const plain = line.replace(/^#+\s*/, '').trim();
  return plain.length > 80 ? `${plain.slice(0, 79)}…` : plain;
}
