/**
 * What crosses between the isolated session and a QuickJS realm as plain data: how a realm's
 * script ended (`Thrown`) and the JSON replies the host function returns. Pure functions; they never touch the port and never throw on what they read.
 */
import { WorkflowError } from '../contract.js';
import { renderForScript } from '../render-thrown.js';

/**
 * How a realm's script ended, as its prelude reported it. A script can throw an `InternalError`
 * of its own, so `memory` and `interrupted` carry its rendering: the session believes them only
 * when it caused them (`believed`).
 */
export type Thrown =
  | { memory: true; rendered: string }
  | { interrupted: true; rendered: string }
  | { code: WorkflowError['code']; message: string; fatal: true }
  | { rendered: string };

export function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof WorkflowError) return { code: error.code, message: error.message };
  return { code: 'SCRIPT_ERROR', message: renderForScript(error) };
}

export function replyText(reply: Record<string, unknown>): string {
  return JSON.stringify(reply);
}

/** A `#!` line is allowed by the pre-parse at the very start only; inside the wrapper it is blanked. */
export function withoutHashBang(script: string): string {
  return script.startsWith('#!') ? script.replace(/^#![^\r\n\u2028\u2029]*/, '') : script;
}
