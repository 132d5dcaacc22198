/**
 * Installs the repository's and the person's instructions into a runtime: every agent gets the
 * protected `instructions` prompt section (no section when there is no file). The files are read
 * when a root session starts (so `/new` sees an AGENTS.md written since) and reused by the
 * children of the process, never read per request. Each problem (a missing import, a cycle) is
 * reported once per process, by default as a line on stderr; it never stops a session.
 */
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { DEFAULT_INSTRUCTION_FILES } from './instructions-files.js';
import { type Instructions, readInstructions } from './instructions-read.js';

export const INSTRUCTIONS_SECTION = 'instructions';
/** After the tools' guidance, before the environment: it never changes within a session, so it caches. */
const INSTRUCTIONS_SECTION_ORDER = 800;

export interface InstructionSettings {
  /** File names tried per folder (config `instructions.files`); default AGENTS.md, then CLAUDE.md. */
  files?: readonly string[];
  /** Gets each problem's line once; default standard error. Must not throw. */
  report?: (line: string) => void;
}

export interface InstructionsLayer {
  /** What the latest read found; undefined before the first agent. */
  current(): Instructions | undefined;
  dispose: Disposer;
}

export function installInstructions(
  runtime: AgentRuntime,
  settings: InstructionSettings = {},
): InstructionsLayer {
  const names = settings.files ?? DEFAULT_INSTRUCTION_FILES;
  const report =
    settings.report ??
    ((line: string) => void process.stderr.write(`loom: instructions: ${line}\n`));
  const reported = new Set<string>();
  let latest: Instructions | undefined;

  const read = (): Instructions => {
    const instructions = readInstructions({ workspace: runtime.cwd, home: runtime.home, names });
    for (const problem of instructions.problems) {
      if (reported.has(problem)) continue;
      reported.add(problem);
      report(problem);
    }
    return instructions;
  };

  const setUp = (handle: AgentHandle): Disposer | undefined => {
    if (handle.log.header.delegationDepth === 0 || latest === undefined) latest = read();
    const text = latest.section;
    if (text === '') return undefined;
    return disposeAll([
      handle.prompt.section({ id: INSTRUCTIONS_SECTION, order: INSTRUCTIONS_SECTION_ORDER, text }),
      handle.prompt.protect({ section: INSTRUCTIONS_SECTION, owner: 'instructions' }),
    ]);
  };
  return { current: () => latest, dispose: runtime.onAgent(setUp) };
}
