/**
 * The one error family of Loom. Every error carries a stable `code` so callers branch on data,
 * never on message text. `UserError` marks a caller's mistake (bad input, bad config) as opposed
 * to a system fault. Messages must never contain a credential's value. Codes form one closed
 * union: a layer declares its own by augmenting `LoomErrorCodeMap` in its `contract.ts` (see it).
 */

/**
 * Every code an error, a turn's ending or a tool result may carry, as keys (the value is unused).
 * The codes of base and core are listed here; a layer that adds codes declares them where it
 * lives, never here:
 *
 * ```ts
 * export type GoalErrorCode = 'GOAL_EXISTS' | 'GOAL_NOT_FOUND';
 * declare module '../base/errors.js' {
 *   interface LoomErrorCodeMap extends Record<GoalErrorCode, true> {}
 * }
 * export class GoalError extends LoomError<GoalErrorCode> {}
 * ```
 */
export interface LoomErrorCodeMap {
  INVALID_ARGUMENT: true;
  INVALID_CONFIG: true;
  SERVICE_MISSING: true;
  SERVICE_TAKEN: true;
  DUPLICATE_TOOL: true;
  TOOL_ARGUMENTS: true;
  TOOL_DENIED: true;
  TOOL_TIMEOUT: true;
  UNKNOWN_TOOL: true;
  PROVIDER_ERROR: true;
  SESSION_NOT_FOUND: true;
  SESSION_CORRUPT: true;
  SESSION_BUSY: true;
  /** A file Loom writes under its home is a symbolic link; nothing is written through it. */
  LINKED_FILE: true;
  STEP_LIMIT: true;
  ABORTED: true;
  /** A tool call the process died during; its result is written when the session is reloaded. */
  INTERRUPTED: true;
  /** A fault of the turn's own machinery (a throwing hook or pipeline), not of the model. */
  INTERNAL: true;
}

/** Every declared code: base's and core's, and those the loaded layers added. */
export type LoomErrorCode = keyof LoomErrorCodeMap;

/** Capability layers pass their own code union as `Code`; every declared code is the default. */
export class LoomError<Code extends LoomErrorCode = LoomErrorCode> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A caller's mistake: the message names the offending file, field or argument. */
export class UserError<Code extends LoomErrorCode = LoomErrorCode> extends LoomError<Code> {}

/** Exhaustiveness check for closed unions. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}

/** Renders any thrown value as a message without ever throwing itself. */
export function errorMessage(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === 'string') return error;
    return String(error);
  } catch {
    return 'unrenderable error';
  }
}
