/**
 * The sections every Loom agent starts with: who it is and where it works. Later layers add
 * their own sections (tool guidance lives with its tool); a persona may be replaced per agent
 * by shadowing the `persona` section id.
 */
import { type Disposer, disposeAll } from './context.js';
import type { SystemPrompt } from './system-prompt.js';

export const PERSONA_SECTION = 'persona';
export const ENVIRONMENT_SECTION = 'environment';

const defaultPersona = [
  "You are Loom, a software engineering agent working in a repository on the user's machine.",
  'Work step by step with the tools you are given: read before you edit, check what you changed,',
  'and say plainly when something failed. Keep answers short and concrete.',
].join('\n');

const environment = [
  '# Environment',
  'Working directory: {{cwd}}',
  'Platform: {{platform}}',
  "Today's date: {{date}}",
].join('\n');

/** `persona` replaces the default persona text (a child's own role, say). */
export function installDefaultPrompt(
  prompt: SystemPrompt,
  cwd: string,
  persona = defaultPersona,
): Disposer {
  const disposers = [
    prompt.setVariable('cwd', cwd),
    prompt.setVariable('platform', process.platform),
    prompt.setVariable('date', new Date().toISOString().slice(0, 10)),
    prompt.section({ id: PERSONA_SECTION, order: 0, text: persona }),
    prompt.section({ id: ENVIRONMENT_SECTION, order: 900, text: environment }),
  ];
  return disposeAll(disposers);
}
