/**
 * The one call the command line makes for a repository's skills and custom commands (see
 * skill-install.ts and command-install.ts). Problems of their files go to `report`, one line
 * each (default standard error).
 */
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import { installCommands } from './command-install.js';
import { installSkills } from './skill-install.js';

export function installSkillsAndCommands(
  runtime: AgentRuntime,
  report: (line: string) => void = (line) => process.stderr.write(line),
): Disposer {
  const skills = installSkills(runtime, { report });
  const commands = installCommands(runtime, report);
  return disposeAll([commands.dispose, skills.dispose]);
}
