/**
 * The sandbox's say in `tools/pre-execute`, outermost, so it sees what every other listener
 * (hooks, permission rules, plan mode) decided: a `deny` stands. Then:
 * - `bash` with `outside_sandbox: true` is asked ("run outside the sandbox?"), unless the first
 *   matching permission rule is an `allow` with `sandbox: false` and nothing else asked;
 * - `write_file` / `edit_file` on a protected path (`.git/hooks`, `.git/config`, `.loom/`,
 *   `.claude/`, `.mcp.json`) is asked the same way, naming the file and why it matters;
 * - in `read-only` mode `write_file` / `edit_file` are denied, naming `sandbox.mode`.
 * Headless, with nobody to ask, an ask is refused by the pipeline with this reason, which says
 * the rule that allows it. Must never turn another listener's deny into an allow.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { compileRules, matchesRule } from '../config/permissions.js';
import type { PermissionRule } from '../config/schema.js';
import type { PreExecuteDecision, ToolCallRequest } from '../core/tool-pipeline.js';
import type { Sandbox } from './command-sandbox.js';

const FILE_TOOLS = new Set(['write_file', 'edit_file']);

export interface GateOptions {
  sandbox: Sandbox;
  rules: readonly PermissionRule[];
  /** The workspace root of the agent making a call. */
  workspaceOf(agentId: string): string;
}

type Concern =
  | { kind: 'refuse'; reason: string }
  | { kind: 'ask'; reason: string; outside: boolean };

export function sandboxGate(options: GateOptions) {
  const compiled = compileRules([...options.rules]);
  const concernOf = (request: ToolCallRequest): Concern | undefined => {
    const args = (request.arguments ?? {}) as Record<string, unknown>;
    const mode = options.sandbox.settings.mode;
    if (request.name === 'bash' && args.outside_sandbox === true) {
      const command = typeof args.command === 'string' ? args.command : '';
      return {
        kind: 'ask',
        outside: true,
        reason:
          `run outside the sandbox? \`${command}\` would run without the sandbox (sandbox.mode: ${mode}); ` +
          `a permission rule { tool: bash, match: { command: ${JSON.stringify(command)} }, action: allow, sandbox: false } allows it without asking`,
      };
    }
    if (!FILE_TOOLS.has(request.name) || typeof args.path !== 'string') return undefined;
    if (mode === 'read-only') {
      return {
        kind: 'refuse',
        reason: `sandbox.mode is read-only, so the file tools do not write; set sandbox.mode: workspace-write in config.yaml to allow it`,
      };
    }
    const workspace = options.workspaceOf(request.agentId);
    const shown = protectedPath(workspace, args.path);
    if (shown === undefined) return undefined;
    return {
      kind: 'ask',
      outside: false,
      reason:
        `${request.name} would change ${shown}, and a hook or config here runs outside the sandbox at the next run; ` +
        `a permission rule { tool: ${request.name}, match: { path: ${JSON.stringify(args.path)} }, action: allow, sandbox: false } allows it without asking`,
    };
  };
  return async (
    request: ToolCallRequest,
    next: (request: ToolCallRequest) => Promise<PreExecuteDecision>,
  ): Promise<PreExecuteDecision> => {
    const concern = concernOf(request);
    if (concern === undefined) return next(request);
    const decision = await next(request);
    if (decision.action === 'deny') return decision;
    if (concern.kind === 'refuse') return { action: 'deny', reason: concern.reason };
    const admit = () => {
      if (concern.outside && typeof request.arguments === 'object' && request.arguments !== null) {
        options.sandbox.admittedOutside.add(request.arguments);
      }
    };
    const rule = compiled.find((candidate) =>
      matchesRule(candidate, request.name, request.arguments),
    );
    if (
      decision.action === 'allow' &&
      rule?.rule.action === 'allow' &&
      rule.rule.sandbox === false
    ) {
      admit();
      return decision;
    }
    // Admitted only if the ask is approved: a refused ask never reaches the tool.
    admit();
    const reason =
      decision.action === 'ask' ? `${decision.reason}; ${concern.reason}` : concern.reason;
    return { action: 'ask', reason };
  };
}

/**
 * `path` (as a file tool names it) shown relative to the workspace when it is, or leads into, a
 * protected path; undefined otherwise. Compared both as written and where links lead.
 */
export function protectedPath(workspace: string, path: string): string | undefined {
  const root = realOrSelf(workspace);
  const absolute = isAbsolute(path) ? resolve(path) : resolve(workspace, path);
  for (const candidate of [absolute, realOfLongestPrefix(absolute)]) {
    for (const base of [resolve(workspace), root]) {
      const inside = relative(base, candidate);
      if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) continue;
      const posix = inside.split(sep).join('/');
      if (isProtected(base, posix)) return posix;
    }
  }
  return undefined;
}

function isProtected(workspace: string, path: string): boolean {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  if (under('.loom') || under('.claude') || path === '.mcp.json') return true;
  if (under('.git/hooks') || path === '.git/config') return true;
  if (!under('.git')) return false;
  // Without a .git folder (none, or a worktree's .git file) all of .git is protected.
  try {
    return !lstatSync(join(workspace, '.git')).isDirectory();
  } catch {
    return true;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Where writing `path` lands: the real path of its longest existing prefix with the rest
 * appended, a dangling link followed to where it points (as the file tools follow it).
 */
function realOfLongestPrefix(path: string, hops = 0): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (parent === path || hops > 40) return path;
    const realParent = realOfLongestPrefix(parent, hops + 1);
    try {
      if (lstatSync(path).isSymbolicLink()) {
        return realOfLongestPrefix(resolve(realParent, readlinkSync(path)), hops + 1);
      }
    } catch {
      // Not there: the name is appended as it is.
    }
    return join(realParent, basename(path));
  }
}
