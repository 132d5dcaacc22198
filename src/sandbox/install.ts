/**
 * Installs the sandbox into a runtime from config `sandbox:`: the `CommandSandbox` every agent's
 * `bash` asks (foreground and background, subagents and workflow children alike, since they
 * share the root scope) and the permission gate in `tools/pre-execute`. Install it before any
 * other `tools/pre-execute` listener (hooks, permission rules), so the gate sees their
 * decisions. With `mode: off` only MCP servers marked `sandbox: true` use it. Each agent's
 * session logs the `sandbox/network` requests of its commands (allowedHosts' proxy). Returns the
 * undo, which also closes the proxy.
 */
import { errorMessage, UserError } from '../base/errors.js';
import type { PermissionRule, SandboxConfig } from '../config/schema.js';
import { agentWorkspaceKey } from '../core/agent-workspace.js';
import type { Disposer } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import { toolPreExecute } from '../core/tool-pipeline.js';
import { commandSandboxKey } from '../tools/command-sandbox.js';
import { Sandbox } from './command-sandbox.js';
import {
  DEFAULT_SANDBOX_SETTINGS,
  type SandboxSettings,
  sandboxNetworkRequested,
} from './contract.js';
import { parseHostPatterns } from './host-pattern.js';
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
      ? 'only /tmp and sandbox.writable are writable (sandbox.mode: read-only)'
      : 'only the workspace (but .git/hooks, .git/config, .loom/, .claude/, .mcp.json), /tmp and sandbox.writable are writable';
  const network = settings.network
    ? ''
    : settings.allowedHosts.length > 0
      ? `; the network reaches only ${settings.allowedHosts.join(', ')}, through HTTP_PROXY and HTTPS_PROXY`
      : '; there is no network';
  return (
    `Sandbox: ${writable}${network}; credentials in $HOME and $LOOM_HOME are hidden. If it stops ` +
    'a command that must run, retry with outside_sandbox: true.'
  );
}

/**
 * The sandbox of `config` (its settings; `$LOOM_HOME` hidden): with `mode: off` still
 * `workspace-write`, since an MCP server marked `sandbox: true` is confined even when commands
 * are not. `loom mcp list` starts such servers in it, as a run does.
 */
export function configuredSandbox(config: SandboxConfig | undefined, loomHome: string): Sandbox {
  const settings = sandboxSettings(config);
  return new Sandbox({
    settings: settings.mode === 'off' ? { ...settings, mode: 'workspace-write' } : settings,
    loomHome,
  });
}

export function installSandbox(
  runtime: AgentRuntime,
  options: { config: SandboxConfig | undefined; permissions: readonly PermissionRule[] },
): SandboxLayer {
  const settings = sandboxSettings(options.config);
  const sandbox = configuredSandbox(options.config, runtime.home);
  if (settings.mode === 'off') return { sandbox, dispose: () => {} };
  try {
    parseHostPatterns(settings.allowedHosts);
  } catch (error) {
    throw new UserError('INVALID_CONFIG', `invalid config:\n${errorMessage(error)}`);
  }
  const { root } = runtime;
  const disposers = [
    () => void sandbox.dispose(),
    runtime.onAgent((handle) =>
      handle.context.on(sandboxNetworkRequested, (request) => {
        if (!handle.log.closed) handle.log.append('sandbox/network', request);
      }),
    ),
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
