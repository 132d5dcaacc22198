/**
 * What plan mode denies while it is enforced: file writes and edits, `bash` commands that the
 * config's permission rules do not mark read-only, anything started in the background, and
 * workflows (their scripts start agents of their own). Foreground subagents may explore: their
 * own calls meet the same guard, decided by the root session's mode. It never allows a call that
 * something else denies; it can only deny.
 */
import {
  compileRules,
  matchesRule,
  SHELL_COMMAND_ARGUMENT,
  SHELL_TOOL,
} from '../config/permissions.js';
import type { PermissionRule } from '../config/schema.js';
import type { GuardVerdict, ToolCallRequest } from '../core/tool-pipeline.js';

export const EXIT_PLAN_MODE_TOOL = 'exit_plan_mode';

/** Tools that change files or start work plan mode cannot watch, whatever their arguments. */
const MUTATING_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file', 'workflow']);

/**
 * A `bash` command is read-only in plan mode when the first permission rule that matches it is
 * an `allow` rule for `bash` itself with a `command` pattern other than `*`: such a rule names
 * the commands the user lets run unasked (every simple command of the line must match it), so
 * they are taken to be inspections. A blanket `allow bash` does not make every command read-only.
 */
export function readOnlyShell(rules: readonly PermissionRule[]): (command: string) => boolean {
  const compiled = compileRules([...rules]);
  return (command) => {
    const hit = compiled.find((rule) =>
      matchesRule(rule, SHELL_TOOL, { [SHELL_COMMAND_ARGUMENT]: command }),
    );
    if (hit === undefined || hit.rule.action !== 'allow' || hit.rule.tool !== SHELL_TOOL) {
      return false;
    }
    const pattern = hit.rule.match?.[SHELL_COMMAND_ARGUMENT];
    return pattern !== undefined && !/^[\s*]*$/.test(pattern);
  };
}

/** Whether plan mode denies every call of `tool`, whatever its arguments. */
export function deniedInPlanMode(tool: string): boolean {
  return MUTATING_TOOLS.has(tool);
}

function denial(what: string): GuardVerdict {
  return {
    deny: `${what} is not allowed in plan mode: you are planning, so explore read-only (read_file, grep, glob, read-only commands), then present your plan with ${EXIT_PLAN_MODE_TOOL}; once the user approves it, plan mode ends and you can make changes.`,
  };
}

/** The verdict of plan mode on one call, for a session whose plan mode is enforced. */
export function planModeVerdict(
  request: Pick<ToolCallRequest, 'name' | 'arguments'>,
  isReadOnlyCommand: (command: string) => boolean,
): GuardVerdict {
  const args = (request.arguments ?? {}) as Record<string, unknown>;
  if (MUTATING_TOOLS.has(request.name)) return denial(request.name);
  if (args.run_in_background === true) return denial(`${request.name} with run_in_background`);
  if (request.name === SHELL_TOOL) {
    const command = args[SHELL_COMMAND_ARGUMENT];
    if (typeof command !== 'string' || !isReadOnlyCommand(command)) {
      return denial(
        'this bash command (not marked read-only by an allow rule in the permissions config)',
      );
    }
  }
  return undefined;
}
