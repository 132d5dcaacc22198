/**
 * Runs the hooks of one event for one agent: picks the groups whose matcher takes the event's
 * subject (a tool's names, a compaction's trigger, a session's source), runs every matching
 * command at once with the event's JSON (Claude Code's common fields `session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`, then the event's own), logs each run as
 * `hook/run` in the agent's session log, and combines what they decided. Never rejects: a hook
 * that fails is a warning.
 */
import type { CredentialVariables } from '../core/credential-variables.js';
import type { SessionLog } from '../core/session-log.js';
import type { HookEventName, HookGroup, HookOrigin, HookRunEvent } from './hook-contract.js';
import { combinedVerdict, type HookVerdict, hookVerdict, loggedReason } from './hook-outcome.js';
import { runHookProcess } from './hook-process.js';

export interface HookRunRequest {
  event: HookEventName;
  /** The agent's session log: named in the payload, and where each run is logged. */
  log: SessionLog;
  /** What a matcher is tested against, by origin; absent: every group of the event matches. */
  subject?: (origin: HookOrigin) => readonly string[];
  /** The event's own fields, in the words of the hook's origin. */
  fields: (origin: HookOrigin) => Record<string, unknown>;
  /** Loom's name of the tool, logged with the run. */
  tool?: string;
  /** Any of them aborting kills the event's hooks. */
  signals: readonly (AbortSignal | undefined)[];
}

export interface HookRunnerOptions {
  groups: readonly HookGroup[];
  /** The workspace: every hook's working folder and `cwd`. */
  workspace: string;
  credentials: () => CredentialVariables | undefined;
}

export class HookRunner {
  constructor(private readonly options: HookRunnerOptions) {}

  /** Whether any hook is declared for `event` (so callers can skip building a payload). */
  has(event: HookEventName): boolean {
    return this.options.groups.some((group) => group.event === event);
  }

  async run(request: HookRunRequest): Promise<HookVerdict> {
    const matching = this.options.groups.filter(
      (group) => group.event === request.event && matches(group, request),
    );
    if (matching.length === 0) return { decision: 'none' };
    const runs = matching.flatMap((group) =>
      group.hooks.map((hook) => this.runOne(group, hook.command, hook.timeoutMs, request)),
    );
    return combinedVerdict(await Promise.all(runs));
  }

  private async runOne(
    group: HookGroup,
    command: string,
    timeoutMs: number,
    request: HookRunRequest,
  ): Promise<HookVerdict> {
    const { log } = request;
    const payload = {
      session_id: log.header.sessionId,
      transcript_path: log.path,
      cwd: this.options.workspace,
      hook_event_name: request.event,
      ...request.fields(group.origin),
    };
    const result = await runHookProcess({
      command,
      input: JSON.stringify(payload),
      cwd: this.options.workspace,
      timeoutMs,
      credentials: this.options.credentials(),
      signals: request.signals.filter((signal) => signal !== undefined),
    });
    const verdict = hookVerdict(request.event, result);
    if (!log.closed) {
      const event: HookRunEvent = {
        event: request.event,
        command,
        exitCode: result.exitCode,
        ms: result.ms,
        decision: verdict.decision,
        ...(request.tool !== undefined ? { tool: request.tool } : {}),
        ...(verdict.reason !== undefined && verdict.decision !== 'approve'
          ? { reason: loggedReason(verdict.reason) }
          : {}),
        ...(result.timedOut ? { timedOut: true as const } : {}),
      };
      log.append('hook/run', event);
    }
    return verdict;
  }
}

function matches(group: HookGroup, request: HookRunRequest): boolean {
  if (!group.pattern || !request.subject) return true;
  const pattern = group.pattern;
  return request.subject(group.origin).some((name) => pattern.test(name));
}
