/**
 * Installs the sandbox into a runtime from config `sandbox:`: the `CommandSandbox` every agent's
 * `bash` asks (foreground and background, subagents and workflow children alike, since they
 * share the root scope) and the permission gate in `tools/pre-execute`. Install it before any
 * other `tools/pre-execute` listener (hooks, permission rules), so the gate sees their
 * decisions. With `mode: off` only MCP servers marked `sandbox: true` use it. Returns the undo.
 */
import type { PermissionRule, SandboxConfig } from '../config/schema.js';
import { agentWorkspaceKey } from '../core/agent-workspace.js';
import type { Disposer } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import { toolPreExecute } from '../core/tool-pipeline.js';
import { commandSandboxKey } from '../tools/command-sandbox.js';
import { Sandbox } from './command-sandbox.js';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from './contract.js';
import { sandboxGate } from './permission-gate.js';

export interface SandboxLayer {
  sandbox: Sandbox;
  dispose: Disposer;
}

/** Config `sandbox:` with its defaults. */
export function sandboxSettings(config: SandboxConfig | undefined): SandboxSettings {
  return {
    mode: config?.mode ?? DEFAULT_SANDBOX_SETTINGS.mode,
    network: config?.network ?? DEFAULT_SANDBOX_SETTINGS.network,
    allowedHosts: config?.allowedHosts ?? DEFAULT_SANDBOX_SETTINGS.allowedHosts,
    writable: config?.writable ?? DEFAULT_SANDBOX_SETTINGS.writable,
    hidden: config?.hidden ?? DEFAULT_SANDBOX_SETTINGS.hidden,
  };
}

/** The sentences `bash`'s description gets under `settings`; undefined with `mode: off`. */
export function sandboxDescription(settings: SandboxSettings): string | undefined {
  if (settings.mode === 'off') return undefined;
  const writable =
    settings.mode === 'read-only'
      ? 'nothing but /tmp and sandbox.writable is writable (sandbox.mode: read-only)'
      : 'only the workspace, /tmp and sandbox.writable are writable, and .git/hooks, .git/config, .loom/, .claude/ and .mcp.json stay read-only';
  const network = settings.network ? '' : '; there is no network';
  return (
    `Commands run in a sandbox: ${writable}${network}; credentials in $HOME and $LOOM_HOME are ` +
    'hidden. When the sandbox stops a command that must run, retry with outside_sandbox: true ' +
    '(the user is asked).'
  );
}

export function installSandbox(
  runtime: AgentRuntime,
  options: { config: SandboxConfig | undefined; permissions: readonly PermissionRule[] },
): SandboxLayer {
  const settings = sandboxSettings(options.config);
  const sandbox = new Sandbox({
    // An MCP server marked `sandbox: true` is confined even when commands are not.
    settings: settings.mode === 'off' ? { ...settings, mode: 'workspace-write' } : settings,
    loomHome: runtime.home,
  });
  if (settings.mode === 'off') return { sandbox, dispose: () => {} };
  if (settings.allowedHosts.length > 0 && !settings.network) {
    process.stderr.write(
      "loom: sandbox.allowedHosts is not applied yet (the proxy that serves it is not wired in): sandboxed commands have no network; set sandbox.network: true to share Loom's\n",
    );
  }
  const { root } = runtime;
  const disposers = [
    root.provide(commandSandboxKey, sandbox),
    root.use(
      toolPreExecute,
      sandboxGate({
        sandbox,
        rules: options.permissions,
        workspaceOf: (agentId) =>
          runtime.find(agentId)?.context.find(agentWorkspaceKey) ?? runtime.cwd,
      }),
    ),
  ];
  return {
    sandbox,
    dispose: () => {
      for (const dispose of disposers.reverse()) dispose();
    },
  };
}
