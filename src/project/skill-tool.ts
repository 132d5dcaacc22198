/**
 * The `skill {name}` tool: a skill's instructions and the files in its folder, as paths the file
 * tools read (relative to the workspace when inside it, else absolute: a personal skill's folder
 * is opened for reading by the layer). An unknown name fails with the names there are. Reads
 * the skill's folder at each call; never writes.
 */
import { readdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { type Skill, type SkillCatalog, SkillError } from './skill-contract.js';
import { SKILL_FILE } from './skill-files.js';

export const SKILL_TOOL = 'skill';
/** Files listed at most; the rest are counted. */
const MAX_FILES = 200;

export function skillTool(catalog: SkillCatalog, workspace: string): ToolDefinition {
  return defineBuiltinTool({
    name: SKILL_TOOL,
    description:
      'Load one of the skills the system prompt lists, by name: returns its instructions and the files in its folder. Follow the instructions; read a listed file with read_file (or run a listed script with bash) when they point to it.',
    arguments: (zod) =>
      zod.strictObject({
        name: zod.string().min(1).describe('The skill, by the name the system prompt lists.'),
      }),
    concurrencySafe: true,
    execute(args) {
      const skill = catalog.find(args.name);
      if (!skill) {
        const known = catalog.list().map((entry) => entry.name);
        throw new SkillError(
          'SKILL_NOT_FOUND',
          `no skill is called ${JSON.stringify(args.name)}; ${known.length > 0 ? `the skills are ${known.join(', ')}` : 'there are no skills'}`,
        );
      }
      return skillText(skill, workspace);
    },
  });
}

export function skillText(skill: Skill, workspace: string): string {
  const shown = (path: string) => shownPath(workspace, path);
  const files = filesOf(skill.folder);
  const listed = files.slice(0, MAX_FILES).map((file) => `- ${shown(file)}`);
  if (files.length > MAX_FILES) listed.push(`- … and ${files.length - MAX_FILES} more`);
  return [
    `skill ${skill.name} (${shown(skill.file)})`,
    `folder: ${shown(skill.folder)}`,
    ...(skill.suggestedTools ? [`tools it names: ${skill.suggestedTools.join(', ')}`] : []),
    listed.length > 0
      ? `files beside ${SKILL_FILE}:\n${listed.join('\n')}`
      : `no files beside ${SKILL_FILE}`,
    '',
    skill.body,
  ].join('\n');
}

/** Every file under `folder` but its `SKILL.md`, in path order; symbolic links are not followed into. */
function filesOf(folder: string): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!(current === folder && entry.name === SKILL_FILE)) found.push(path);
      if (found.length > MAX_FILES * 5) return;
    }
  };
  walk(folder);
  return found;
}

function shownPath(workspace: string, path: string): string {
  const inside = relative(workspace, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
    return path.split(sep).join('/');
  return inside.split(sep).join('/');
}
