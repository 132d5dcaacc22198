/**
 * The one error family of Loom. Every error carries a stable `code` so callers branch on data,
 * never on message text. `UserError` marks a caller's mistake (bad input, bad config) as opposed
 * to a system fault. Messages must never contain a credential's value.
 */

export type LoomErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_CONFIG'
  | 'INVALID_SCRIPTED_MODEL'
  | 'SERVICE_MISSING'
  | 'SERVICE_TAKEN'
  | 'DUPLICATE_TOOL'
  | 'TOOL_ARGUMENTS'
  | 'TOOL_DENIED'
  | 'TOOL_TIMEOUT'
  | 'UNKNOWN_TOOL'
  | 'MODEL_SPEC'
  | 'MISSING_CREDENTIAL'
  | 'PROVIDER_ERROR'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_CORRUPT'
  | 'SESSION_BUSY'
  | 'AGENT_BUSY'
  | 'STEP_LIMIT'
  | 'ABORTED'
  | 'PROTECTED';

/** Capability layers pass their own code union as `Code`; core's codes are the default. */
export class LoomError<Code extends string = LoomErrorCode> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A caller's mistake: the message names the offending file, field or argument. */
export class UserError<Code extends string = LoomErrorCode> extends LoomError<Code> {}

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
