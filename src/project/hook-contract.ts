/**
 * The hooks seam: a hook is a shell command a repository (config `hooks:`, `.claude/settings.json`)
 * runs at an agent's events, in Claude Code's shape, so its scripts work unchanged. What one run
 * is logged as (`hook/run`), the code of a prompt a hook refused, and the loaded form of a hook.
 * Types only; running hooks is hook-runner.ts's job.
 */
import type { HookEventName } from '../config/schema.js';

export type { HookEventName } from '../config/schema.js';

/** Where a hook was written: Loom's config speaks Loom's tool names, `.claude/` Claude Code's. */
export type HookOrigin = 'config' | 'claude';

/** Claude Code's default, in milliseconds. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** The `source` of the messages hooks add to a turn (context, a Stop hook's reason). */
export const HOOK_SOURCE = 'hook';

export interface HookCommand {
  command: string;
  timeoutMs: number;
}

/** One matcher's hooks of one event, as loaded. */
export interface HookGroup {
  event: HookEventName;
  origin: HookOrigin;
  /** The file it was read from, for messages. */
  file: string;
  /** Anchored at both ends; absent: it matches everything. */
  pattern?: RegExp;
  hooks: HookCommand[];
}

/**
 * What a run decided: `block` stopped the action (or, for Stop, kept the agent going), `approve`
 * and `ask` came from a PreToolUse hook, `none` let it go on, `warning` is a hook that failed
 * (another exit code, a timeout, a command that could not start) while the action went on.
 */
export type HookDecision = 'block' | 'approve' | 'ask' | 'none' | 'warning';

export interface HookRunEvent {
  event: HookEventName;
  command: string;
  /** Null when the hook was killed (its time ran out, or its agent stopped) or never started. */
  exitCode: number | null;
  ms: number;
  decision: HookDecision;
  /** Loom's name of the tool, for PreToolUse and PostToolUse. */
  tool?: string;
  /** The reason of a block or ask, or what went wrong for a warning (cut to a few lines). */
  reason?: string;
  timedOut?: true;
}

export type HookErrorCode = 'HOOK_BLOCKED';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<HookErrorCode, true> {}
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'hook/run': HookRunEvent;
  }
}
