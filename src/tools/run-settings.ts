/**
 * How a shell command is run (shell, folder, output cap, drain grace, environment): the settings
 * the foreground `bash` call (bash.ts) hands to a background job (background-bash.ts). A type
 * only; it must never import either of them.
 */
import type { SandboxLaunch } from './command-sandbox.js';

/** How a command is run, shared by the foreground call and background jobs. */
export interface RunSettings {
  shell: string;
  cwd: string;
  outputLimit: number;
  drainGraceMs: number;
  /** The command's environment, credentials already taken out. */
  env: NodeJS.ProcessEnv;
  /** The sandbox the command runs in (its launcher, environment and end); absent: unconfined. */
  launch?: SandboxLaunch;
}
