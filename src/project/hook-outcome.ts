/**
 * What a hook's ending means, by Claude Code's rules: exit 2 blocks (its stderr is the reason)
 * where the event can be blocked; exit 0 goes on, and its stdout may be JSON with `decision`
 * (`block`, `approve`), `reason`, `additionalContext`, or `hookSpecificOutput`
 * (`permissionDecision` `allow|deny|ask`, `permissionDecisionReason`, `additionalContext`); plain
 * stdout of UserPromptSubmit and SessionStart is context for the model; any other ending is a
 * warning and the action goes on. Several hooks of one event combine: any block blocks. Pure.
 */
import type { HookDecision, HookEventName } from './hook-contract.js';
import type { HookProcessResult } from './hook-process.js';

/** Characters of a reason kept in the log and the terminal's line (the model gets it whole). */
const LOGGED_REASON_CHARACTERS = 2000;

export interface HookVerdict {
  decision: HookDecision;
  /** For the model (block, ask) or the person (warning). */
  reason?: string;
  /** Text the model is given with the action. */
  context?: string;
}

/** Events where a block stops the action (or, for Stop and SubagentStop, keeps the agent on). */
const BLOCKING: readonly HookEventName[] = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
];
/** Events whose plain stdout is context for the model. */
const PLAIN_CONTEXT: readonly HookEventName[] = ['UserPromptSubmit', 'SessionStart'];

export function hookVerdict(event: HookEventName, run: HookProcessResult): HookVerdict {
  if (run.startError !== undefined) return { decision: 'warning', reason: run.startError };
  if (run.timedOut) return { decision: 'warning', reason: `timed out after ${run.ms} ms` };
  if (run.cancelled) return { decision: 'none' };
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) {
    if (!BLOCKING.includes(event)) return warning(stderr, run.exitCode);
    return { decision: 'block', reason: stderr || 'a hook blocked it (exit code 2)' };
  }
  if (run.exitCode !== 0) return warning(stderr, run.exitCode);
  return fromOutput(event, run.stdout.trim());
}

function warning(stderr: string, exitCode: number | null): HookVerdict {
  return { decision: 'warning', reason: stderr || `exit code ${String(exitCode)}` };
}

function fromOutput(event: HookEventName, stdout: string): HookVerdict {
  const json = stdout.startsWith('{') ? parsedObject(stdout) : undefined;
  if (!json) {
    return PLAIN_CONTEXT.includes(event) && stdout !== ''
      ? { decision: 'none', context: stdout }
      : { decision: 'none' };
  }
  const specific = isRecord(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const context = text(specific.additionalContext) ?? text(json.additionalContext);
  const withContext = (verdict: HookVerdict): HookVerdict =>
    context !== undefined ? { ...verdict, context } : verdict;
  const reason = text(specific.permissionDecisionReason) ?? text(json.reason);
  const decision = decisionOf(specific.permissionDecision, json.decision);
  if (decision === 'block' && !BLOCKING.includes(event)) return withContext({ decision: 'none' });
  if (decision === 'none') return withContext({ decision });
  const fallback = decision === 'block' ? 'a hook blocked it' : undefined;
  const given = reason ?? fallback;
  return withContext(given !== undefined ? { decision, reason: given } : { decision });
}

function decisionOf(permission: unknown, decision: unknown): HookDecision {
  switch (permission) {
    case 'deny':
      return 'block';
    case 'allow':
      return 'approve';
    case 'ask':
      return 'ask';
  }
  if (decision === 'block') return 'block';
  if (decision === 'approve') return 'approve';
  return 'none';
}

/** Several runs of one event as one: block over ask over approve; reasons and context joined. */
export function combinedVerdict(verdicts: readonly HookVerdict[]): HookVerdict {
  const order: HookDecision[] = ['block', 'ask', 'approve'];
  const decision = order.find((wanted) => verdicts.some((one) => one.decision === wanted));
  const joined = (parts: (string | undefined)[]) => {
    const kept = parts.filter((part): part is string => part !== undefined && part !== '');
    return kept.length > 0 ? kept.join('\n') : undefined;
  };
  const reason = decision
    ? joined(verdicts.filter((one) => one.decision === decision).map((one) => one.reason))
    : undefined;
  const context = joined(verdicts.map((one) => one.context));
  return {
    decision: decision ?? 'none',
    ...(reason !== undefined ? { reason } : {}),
    ...(context !== undefined ? { context } : {}),
  };
}

/** A reason as the log keeps it: at most a couple of thousand characters. */
export function loggedReason(reason: string): string {
  return reason.length > LOGGED_REASON_CHARACTERS
    ? `${reason.slice(0, LOGGED_REASON_CHARACTERS - 1)}…`
    : reason;
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
