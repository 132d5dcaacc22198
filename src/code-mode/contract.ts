/**
 * Code Mode: how an agent is shown its tools. `native` offers each tool to the model; `code`
 * offers `run_code` alone, with the other tools described as a TypeScript SDK in the protected
 * `tools:sdk` prompt section; `both` offers every tool and `run_code` with the SDK. A program's
 * calls still pass the whole tool pipeline, one by one. Types and codes only; never behaviour.
 */
import type { ProgramLimits } from './program-contract.js';

export const TOOL_PRESENTATIONS = ['native', 'code', 'both'] as const;
export type ToolPresentation = (typeof TOOL_PRESENTATIONS)[number];

/** The reserved transport tool: the model's only way to call tools in `code` mode. */
export const RUN_CODE_TOOL = 'run_code';
/** The protected prompt section holding the generated SDK. */
export const SDK_SECTION = 'tools:sdk';

export type CodeModeLimits = ProgramLimits;

/** A program's limits unless configured: 2 minutes, 64 MB of heap, 64 KiB of console output. */
export const DEFAULT_CODE_MODE_LIMITS: Readonly<CodeModeLimits> = Object.freeze({
  timeoutMs: 120_000,
  memoryMb: 64,
  outputBytes: 64 * 1024,
});

export interface CodeModeSettings {
  /** Root agents' presentation; default `native`. */
  presentation?: ToolPresentation;
  /** Subagents' presentation (workflow children included); default: `presentation`. */
  subagentPresentation?: ToolPresentation;
  limits?: Partial<CodeModeLimits>;
}

export type CodeModeErrorCode = 'CODE_TIMEOUT' | 'CODE_MEMORY' | 'CODE_ERROR';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<CodeModeErrorCode, true> {}
}

export function isToolPresentation(value: unknown): value is ToolPresentation {
  return (TOOL_PRESENTATIONS as readonly unknown[]).includes(value);
}
