/**
 * Skills (the Agent Skills format): folders with a `SKILL.md` whose front matter has `name` and
 * `description` and whose body are instructions, with any files beside it. The catalog is read
 * once when the layer installs; the `skill {name}` tool hands a skill's body and files to the
 * model, and its names and descriptions are a protected prompt section.
 */
import { LoomError } from '../base/errors.js';
import { serviceKey } from '../core/context.js';
import type { SetupProblem } from './markdown-front-matter.js';
import type { SetupOrigin } from './project-folders.js';

export interface Skill {
  /** Lowercase letters, digits and hyphens, at most 64 characters. */
  name: string;
  /** When to use it, at most 1024 characters: what the model reads to choose a skill. */
  description: string;
  /** The instructions: `SKILL.md` after its front matter. */
  body: string;
  /** The skill's folder (absolute). */
  folder: string;
  /** Its `SKILL.md` (absolute). */
  file: string;
  origin: SetupOrigin;
  /** `allowed-tools`, in Loom's names: the tools the skill says it needs (told, not enforced). */
  suggestedTools?: string[];
}

/** A skill left out because one of the same name comes earlier in precedence. */
export interface HiddenSkill {
  name: string;
  file: string;
  /** The file of the skill that hides it. */
  hiddenBy: string;
}

export interface SkillCatalog {
  /** Every usable skill, one per name (the project's hide the person's), sorted by name. */
  list(): Skill[];
  /** The skill called `name`, or undefined; never throws. */
  find(name: string): Skill | undefined;
  /** What was wrong with the files read (a file with a problem that makes it unusable is left out). */
  readonly problems: readonly SetupProblem[];
  readonly hidden: readonly HiddenSkill[];
}

export const skillCatalogKey = serviceKey<SkillCatalog>('project/skills');

export type SkillErrorCode = 'SKILL_NOT_FOUND';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<SkillErrorCode, true> {}
}

/** `SKILL_NOT_FOUND`: the `skill` tool was given a name no skill has; the message lists them. */
export class SkillError extends LoomError<SkillErrorCode> {}
