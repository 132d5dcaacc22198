/**
 * `loom init [--force]`: one headless turn in a new session whose prompt asks the agent to explore
 * the workspace and write its AGENTS.md (src/project/init-prompt.ts), streamed as `loom run`
 * streams. An existing AGENTS.md is refused before any model runs unless `--force`. Exit 0 once
 * the turn completed and AGENTS.md was written (or changed), 1 when the agent did not write it
 * or the turn failed, 2 when it could not start (a bad flag, the model's key missing).
 */
import { errorMessage, UserError } from '../base/errors.js';
import { loomHome } from '../core/home.js';
import { INIT_FILE, initFileText, initPrompt, initRefusal } from '../project/init-prompt.js';
import { buildRuntime } from './build-runtime.js';
import { runSession } from './run-command.js';
import { resolveWorkspace } from './session-workspace.js';
import { writeStartError } from './start-error.js';

export interface InitOptions {
  force?: boolean;
  model?: string;
  cwd?: string;
}

const USAGE_CODES: ReadonlySet<string> = new Set([
  'INVALID_ARGUMENT',
  'MODEL_SPEC',
  'MISSING_CREDENTIAL',
]);

export async function initCommand(options: InitOptions): Promise<number> {
  let started: ReturnType<typeof start>;
  try {
    started = start(options);
  } catch (error) {
    writeStartError(error, errorMessage(error), false);
    return error instanceof UserError && USAGE_CODES.has(error.code) ? 2 : 1;
  }
  if (typeof started === 'string') {
    process.stderr.write(`loom init: ${started}\n`);
    return 1;
  }
  const { setup, workspace, before } = started;
  const handle = setup.runtime.start();
  const sessionId = handle.log.header.sessionId;
  const code = await runSession(setup, handle, {
    prompt: initPrompt({ replacing: before !== undefined }),
  });
  if (code !== 0) return code;
  const after = initFileText(workspace);
  if (after === undefined || after === before) {
    process.stderr.write(
      `loom init: the agent ended without ${before === undefined ? 'writing' : 'changing'} ${INIT_FILE} (session ${sessionId})\n`,
    );
    return 1;
  }
  process.stderr.write(`wrote ${INIT_FILE} (session ${sessionId})\n`);
  return 0;
}

/** The runtime and what AGENTS.md held before, or why init refuses to run here. */
function start(options: InitOptions) {
  const workspace = resolveWorkspace(options.cwd);
  const refusal = initRefusal(workspace, {
    force: options.force === true,
    forceHint: 'loom init --force',
  });
  if (refusal !== undefined) return refusal;
  const before = initFileText(workspace);
  const setup = buildRuntime({
    cwd: workspace,
    home: loomHome(),
    ...(options.model !== undefined ? { model: options.model } : {}),
    requireModelKey: true,
  });
  return { setup, workspace, before };
}
