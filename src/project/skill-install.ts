/**
 * Installs skills into a runtime: the catalog read once from the skill folders (problems
 * reported on standard error, one line each), the `skill` tool and the protected `skills` prompt
 * section (names and descriptions) on every agent while there is a skill, and each skill's folder
 * opened for reading to the file tools (a personal skill lives outside the workspace). Without
 * skills an agent gets neither tool nor section.
 */
import type { Disposer } from '../core/context.js';
import { disposeAll } from '../core/context.js';
import { addReadingRoot } from '../core/reading-roots.js';
import type { AgentRuntime } from '../core/runtime.js';
import { problemLine } from './markdown-front-matter.js';
import { type SkillCatalog, skillCatalogKey } from './skill-contract.js';
import { loadSkills } from './skill-files.js';
import { SKILL_TOOL, skillTool } from './skill-tool.js';

export const SKILLS_SECTION = 'skills';
/** After the layers' own sections: it changes only when the skill files do. */
const SKILLS_SECTION_ORDER = 700;

export interface SkillsOptions {
  /** Receives each problem's line; default standard error. Must not throw. */
  report?: (line: string) => void;
}

export interface SkillsLayer {
  catalog: SkillCatalog;
  dispose: Disposer;
}

export function installSkills(runtime: AgentRuntime, options: SkillsOptions = {}): SkillsLayer {
  const report = options.report ?? ((line) => process.stderr.write(line));
  const catalog = loadSkills({ workspace: runtime.cwd, home: runtime.home });
  for (const problem of catalog.problems) report(`loom: skill ${problemLine(problem)}\n`);
  const tool = skillTool(catalog, runtime.cwd);
  const skills = catalog.list();
  const disposers: Disposer[] = [
    runtime.root.provide(skillCatalogKey, catalog),
    // Declared even without skills, so config may name it; then no agent is given it.
    runtime.toolCatalog.declare(
      [tool],
      skills.length > 0
        ? {}
        : {
            notForChildren:
              'no agent gets it: there are no skills (.loom/skills/, .claude/skills/, $LOOM_HOME/skills/)',
          },
    ),
    ...skills.map((skill) => addReadingRoot(runtime.root, skill.folder)),
  ];
  if (skills.length > 0) {
    const text = skillsSection(catalog);
    disposers.push(
      runtime.onAgent((handle) =>
        disposeAll([
          handle.tools.register(tool),
          handle.prompt.section({
            id: SKILLS_SECTION,
            order: SKILLS_SECTION_ORDER,
            // An agent whose tools leave out `skill` (an agent type's list) is not told of skills.
            text: () => (handle.tools.lookup(SKILL_TOOL) ? text : ''),
          }),
          handle.prompt.protect({ section: SKILLS_SECTION, owner: 'skills' }),
        ]),
      ),
    );
  }
  return { catalog, dispose: disposeAll(disposers) };
}

export function skillsSection(catalog: SkillCatalog): string {
  const lines = catalog.list().map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`);
  return [
    '# Skills',
    `Skills are instructions for particular tasks, kept with this project or by the user. When a task matches a skill's description, call \`${SKILL_TOOL}\` with its name before you start, and follow what it returns.`,
    ...lines,
  ].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
