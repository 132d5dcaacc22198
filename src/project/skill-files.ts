/**
 * Reads the skills of a workspace and of the person: each folder of `.loom/skills/`,
 * `.claude/skills/` and `$LOOM_HOME/skills/` that holds a `SKILL.md`, in that precedence (an
 * earlier skill hides a later one of the same name). A file with a problem is reported by file,
 * line and field; a problem that leaves it unusable leaves it out, and the others still load.
 * Reads only; a missing folder is no skill.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../base/errors.js';
import { parseAllowedTools } from './command-allowed-tools.js';
import { FieldReader, readFrontMatterFile, type SetupProblem } from './markdown-front-matter.js';
import { type SetupFolder, setupFolders } from './project-folders.js';
import type { HiddenSkill, Skill, SkillCatalog } from './skill-contract.js';

export const SKILL_FILE = 'SKILL.md';
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
/** The Agent Skills fields; anything else is reported as not read. */
const KNOWN_FIELDS = new Set([
  'name',
  'description',
  'license',
  'compatibility',
  'metadata',
  'allowed-tools',
]);

export function loadSkills(where: { workspace: string; home: string }): SkillCatalog {
  const problems: SetupProblem[] = [];
  const hidden: HiddenSkill[] = [];
  const byName = new Map<string, Skill>();
  for (const folder of setupFolders('skills', where)) {
    for (const skill of skillsIn(folder, problems)) {
      const earlier = byName.get(skill.name);
      if (earlier) hidden.push({ name: skill.name, file: skill.file, hiddenBy: earlier.file });
      else byName.set(skill.name, skill);
    }
  }
  const sorted = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    list: () => [...sorted],
    find: (name) => byName.get(name),
    problems,
    hidden,
  };
}

function skillsIn(folder: SetupFolder, problems: SetupProblem[]): Skill[] {
  if (!existsSync(folder.path)) return [];
  let names: string[];
  try {
    names = readdirSync(folder.path).sort();
  } catch (error) {
    problems.push({ file: folder.path, message: `cannot be listed: ${errorMessage(error)}` });
    return [];
  }
  const skills: Skill[] = [];
  for (const entry of names) {
    const skillFolder = join(folder.path, entry);
    const file = join(skillFolder, SKILL_FILE);
    if (!isFolder(skillFolder) || !existsSync(file)) continue;
    const skill = readSkill(file, skillFolder, entry, folder, problems);
    if (skill) skills.push(skill);
  }
  return skills;
}

function readSkill(
  file: string,
  folder: string,
  folderName: string,
  origin: SetupFolder,
  problems: SetupProblem[],
): Skill | undefined {
  const parsed = readFrontMatterFile(file, 'skill', problems);
  if (!parsed) return undefined;
  if (!parsed.present) {
    problems.push({
      file,
      line: 1,
      message:
        'has no front matter: start it with ---, name: and description: lines, then ---; the skill is left out',
    });
    return undefined;
  }
  const fields = new FieldReader(file, parsed.fields, parsed.lines, parsed.written);
  const name = fields.text('name');
  const description = fields.text('description')?.trim();
  if (!fields.has('name')) fields.problem('name', 'is missing');
  else if (name !== undefined && (!NAME.test(name) || name.length > MAX_NAME)) {
    fields.problem(
      'name',
      `${JSON.stringify(name)} must be lowercase letters, digits and single hyphens, at most ${MAX_NAME} characters`,
    );
  }
  if (!fields.has('description') || description === '') fields.problem('description', 'is missing');
  else if (description !== undefined && description.length > MAX_DESCRIPTION) {
    fields.problem(
      'description',
      `has ${description.length} characters; at most ${MAX_DESCRIPTION}`,
    );
  }
  const essential = fields.take();
  if (essential.length > 0 || name === undefined || description === undefined) {
    for (const problem of essential) {
      problems.push({ ...problem, message: `${problem.message}; the skill is left out` });
    }
    return undefined;
  }
  if (name !== folderName) {
    problems.push({
      file,
      ...(parsed.lines.name !== undefined ? { line: parsed.lines.name } : {}),
      message: `name: ${name} differs from its folder's name ${folderName}; it is known as ${name}`,
    });
  }
  let suggestedTools: string[] | undefined;
  if (fields.has('allowed-tools')) {
    const allowed = parseAllowedTools(fields.raw('allowed-tools'));
    if ('problem' in allowed) fields.problem('allowed-tools', `${allowed.problem}; left unread`);
    else suggestedTools = allowed.map((entry) => entry.written);
  }
  for (const unknown of fields.unknown(KNOWN_FIELDS)) {
    fields.problem(
      unknown,
      `is not a field Loom reads (${[...KNOWN_FIELDS].join(', ')}); left unread`,
    );
  }
  problems.push(...fields.take());
  return {
    name,
    description,
    body: parsed.body.trim(),
    folder,
    file,
    origin: origin.origin,
    ...(suggestedTools && suggestedTools.length > 0 ? { suggestedTools } : {}),
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
