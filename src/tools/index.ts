/**
 * The built-in tools and their shared pieces, in one list a caller registers: read_file,
 * write_file, edit_file, glob, grep and bash (with background jobs when asked), all bound to one
 * workspace. Must never register anything itself; the caller owns the tool registry.
 */
import type { ToolDefinition } from '../core/tool-contract.js';
import { bashTool } from './bash.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readFileTool } from './read-file.js';
import type { Workspace } from './workspace.js';
import { writeFileTool } from './write-file.js';

export { startBackgroundCommand } from './background-bash.js';
export { type BashToolOptions, bashTool, killProcessGroup } from './bash.js';
export { BoundedOutput } from './bounded-output.js';
export { commandEnvironment } from './command-environment.js';
export {
  type CommandRunner,
  commandRunnerKey,
  commandRunnerOf,
  localCommandRunner,
} from './command-runner.js';
export {
  type CommandSandbox,
  commandSandboxKey,
  type SandboxDecision,
  type SandboxLaunch,
} from './command-sandbox.js';
export { compileGlob, splitGlobBase } from './compile-glob.js';
export { type EditFileOptions, editFileTool } from './edit-file.js';
export {
  type FileRequest,
  localFileAccess,
  type WorkspaceFileAccess,
  workspaceFileAccessKey,
} from './file-access.js';
export { type GlobOptions, globTool } from './glob.js';
export { type GrepOptions, grepTool } from './grep.js';
export { containsNulByte, isBinaryFile } from './is-binary-file.js';
export {
  installProcessGroupLog,
  type ProcessGroupEnd,
  type ProcessGroupStart,
  processGroupEnded,
  processGroupStarted,
} from './process-group-log.js';
export { type ReadFileOptions, readFileTool } from './read-file.js';
export { kindOf, openRegularFile } from './regular-file.js';
export type { ShellExit, ShellOptions, ShellProcess } from './shell-process.js';
export {
  defaultSkippedFolders,
  type WalkedFile,
  type WalkOptions,
  walkFiles,
} from './walk-files.js';
export {
  displayPath,
  type ResolveOptions,
  resolveInWorkspace,
  type Workspace,
} from './workspace.js';
export { type WriteFileOptions, writeFileTool } from './write-file.js';

export interface BuiltinToolOptions {
  workspace: Workspace;
  /** Default time limit of a bash call. Default 120000 ms. */
  bashTimeoutMs?: number;
  /** Characters of bash output kept. Default 30000. */
  outputLimit?: number;
  /**
   * Offer `run_in_background` on bash. Default false; pass true only where a background runner
   * (the jobs layer) is installed.
   */
  background?: boolean;
  /** Characters of a background command's unread output kept between reads. Default 1048576. */
  backgroundOutputLimit?: number;
  /** Credential variables bash commands see on purpose (`tools.bash.env.passthrough`). */
  bashPassthroughVariables?: readonly string[];
  /** What the sandbox allows, for bash's description (config `sandbox:`). */
  bashSandboxDescription?: string;
}

export function builtinTools(options: BuiltinToolOptions): ToolDefinition[] {
  const { workspace } = options;
  return [
    readFileTool({ workspace }),
    writeFileTool({ workspace }),
    editFileTool({ workspace }),
    globTool({ workspace }),
    grepTool({ workspace }),
    bashTool({
      workspace,
      ...(options.bashTimeoutMs !== undefined && { defaultTimeoutMs: options.bashTimeoutMs }),
      ...(options.outputLimit !== undefined && { outputLimit: options.outputLimit }),
      ...(options.background !== undefined && { background: options.background }),
      ...(options.backgroundOutputLimit !== undefined && {
        backgroundOutputLimit: options.backgroundOutputLimit,
      }),
      ...(options.bashPassthroughVariables !== undefined && {
        passthroughVariables: options.bashPassthroughVariables,
      }),
      ...(options.bashSandboxDescription !== undefined && {
        sandboxDescription: options.bashSandboxDescription,
      }),
    }),
  ];
}
