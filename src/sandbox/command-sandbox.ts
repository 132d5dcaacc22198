/**
 * The sandbox `bash` asks before each command (tools' `CommandSandbox` seam): bwrap found and
 * able to run, the plan read from the disk, placeholders made, and the launcher, environment
 * and blocked-output note handed back. A call with `outside_sandbox: true` runs unconfined only
 * when the permission gate admitted it (approved by the user, or an `allow` rule with
 * `sandbox: false`); anything else is refused, never run unconfined. Also starts MCP servers
 * marked `sandbox: true` the same way.
 * With `sandbox.allowedHosts` (and `network: false`) a command reaches those hosts through Loom's
 * proxy (network-proxy.ts): started at the first such command, shared by every command of the
 * process (foreground, background, subagents, workflow children), each command with a socket of
 * its own whose requests are emitted on its agent's scope (`sandbox/network`); `dispose()`, or
 * the process's exit, closes it and removes its folder. An MCP server has no session to log its
 * requests in, so it gets no proxy: without `network: true` it has no network.
 */
import { join } from 'node:path';
import { errorMessage } from '../base/errors.js';
import type { Disposer } from '../core/context.js';
import type {
  CommandSandbox,
  SandboxDecision,
  SandboxLaunch,
  SandboxRequest,
} from '../tools/command-sandbox.js';
import { blockedNote } from './blocked-note.js';
import { bwrapArguments } from './bwrap-arguments.js';
import { bwrapStatus } from './bwrap-probe.js';
import {
  HOME_SECRETS,
  SANDBOX_TMP,
  type SandboxNetwork,
  type SandboxSettings,
  sandboxNetworkRequested,
} from './contract.js';
import { sharedHoldsFolder } from './holds-registry.js';
import { type NetworkProxy, type ProxyReport, startNetworkProxy } from './network-proxy.js';
import { holdPlaceholder } from './placeholders.js';
import { DEFAULT_PROXY_PORT } from './sandbox-network.js';
import { absoluteSandboxPath, planCommand } from './sandbox-plan.js';

export interface SandboxOptions {
  settings: SandboxSettings;
  /** `$LOOM_HOME`: hidden from every command. */
  loomHome: string;
  /**
   * The registry of placeholder holds shared with other Loom processes (hidden from every
   * command); default this user's `sharedHoldsFolder()`.
   */
  holdsFolder?: string;
  /** Loom's environment (`HOME`, `PATH`); default `process.env`, read at each command. */
  environment?: NodeJS.ProcessEnv;
}

export class Sandbox implements CommandSandbox {
  /** The arguments of calls the permission gate admitted with `outside_sandbox: true`. */
  readonly admittedOutside = new WeakSet<object>();
  private readonly options: SandboxOptions;
  private readonly holdsFolder: string;
  /** The allow-list proxy, once a command needed it. */
  private proxy: NetworkProxy | undefined;
  private stopClosingAtExit: Disposer | undefined;

  constructor(options: SandboxOptions) {
    this.options = options;
    this.holdsFolder = options.holdsFolder ?? sharedHoldsFolder();
  }

  get settings(): SandboxSettings {
    return this.options.settings;
  }

  prepare(request: SandboxRequest): SandboxDecision {
    if (request.outsideSandbox) {
      const args = request.execution.arguments;
      if (typeof args === 'object' && args !== null && this.admittedOutside.has(args)) {
        return { kind: 'unconfined' };
      }
      return {
        kind: 'refused',
        message:
          "bash was not run: outside_sandbox: true needs the user's approval or a permission rule with action: allow and sandbox: false, and this call had neither.",
      };
    }
    const { context } = request.execution;
    const decision = this.launch(request.cwd, request.env, (proxied) =>
      context.emit(sandboxNetworkRequested, proxied),
    );
    if (decision.kind === 'refused') {
      return { kind: 'refused', message: `bash was not run: ${decision.message}` };
    }
    return decision;
  }

  /**
   * A process of `cwd` under the sandbox: its launcher, or why not. With `report` (a command's)
   * and `sandbox.allowedHosts`, it reaches those hosts through the proxy, each request reported;
   * without (an MCP server) it has no network unless `sandbox.network` is true.
   */
  launch(cwd: string, env: NodeJS.ProcessEnv, report?: ProxyReport): SandboxDecision {
    const environment = this.options.environment ?? process.env;
    const status = bwrapStatus(environment.PATH);
    if (!status.ok) return { kind: 'refused', message: status.message };
    const home = environment.HOME;
    const releases: (() => void)[] = [];
    let network: SandboxNetwork;
    try {
      network = this.network(report, releases);
    } catch (error) {
      return {
        kind: 'refused',
        message: `the sandbox's network proxy (sandbox.allowedHosts) could not start: ${errorMessage(error)}`,
      };
    }
    // Another Loom process's placeholder can go between the plan and the holds (it ended, and
    // what the plan saw as existing is gone, so a placeholder below it cannot be made): plan again.
    // Once held, no process removes a protected path while this command runs.
    let outcome: PlannedCommand | undefined;
    for (let attempt = 1; outcome === undefined; attempt += 1) {
      const planned = planCommand({
        settings: this.settings,
        workspace: cwd,
        home,
        loomHome: this.options.loomHome,
        holdsFolder: this.holdsFolder,
        network,
      });
      if (planned.kind === 'refused') {
        for (const release of releases) release();
        return planned;
      }
      const held: (() => void)[] = [];
      try {
        holdProtectedPaths(planned, this.holdsFolder, held);
        releases.push(() => releaseInReverse(held));
        outcome = planned;
      } catch (error) {
        releaseInReverse(held);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < PLAN_ATTEMPTS) continue;
        for (const release of releases) release();
        return {
          kind: 'refused',
          message: `the sandbox could not make or hold a read-only placeholder for a protected path: ${errorMessage(error)}`,
        };
      }
    }
    const plan =
      network.kind === 'proxy' && this.proxy
        ? // The other commands' sockets, where os.tmpdir() is not the private /tmp.
          { ...outcome.plan, hiddenFolders: [...outcome.plan.hiddenFolders, this.proxy.folder] }
        : outcome.plan;
    const { args, network: setup } = bwrapArguments(plan);
    const hidden = [
      ...outcome.plan.hiddenFolders,
      ...outcome.plan.hiddenFiles,
      ...(home === undefined ? [] : HOME_SECRETS.map((name) => join(home, name))),
      this.options.loomHome,
      this.holdsFolder,
      ...this.settings.hidden.map((path) => absoluteSandboxPath(path, cwd, home)),
    ];
    let ended = false;
    const launch: SandboxLaunch = {
      launcher: [status.path, ...args, '--', ...setup.prefix],
      env: { ...env, ...setup.env, TMPDIR: SANDBOX_TMP },
      ended() {
        if (ended) return;
        ended = true;
        for (const release of releases) release();
      },
      explain: (output) =>
        blockedNote(output, {
          hidden,
          ownNetwork: network.kind !== 'open',
          proxied: network.kind === 'proxy',
        }),
    };
    return { kind: 'sandboxed', launch };
  }

  /**
   * How one process reaches the network. Through the proxy (started at its first use) it gets a
   * socket of its own, closed with the process's other releases.
   */
  private network(report: ProxyReport | undefined, releases: (() => void)[]): SandboxNetwork {
    if (this.settings.network) return { kind: 'open' };
    if (this.settings.allowedHosts.length === 0 || report === undefined) return { kind: 'none' };
    if (this.proxy === undefined) {
      this.proxy = startNetworkProxy({ allowedHosts: this.settings.allowedHosts });
      const proxy = this.proxy;
      // A process that exits without disposing (process.exit) still removes the folder.
      const closeAtExit = () => void proxy.close();
      process.on('exit', closeAtExit);
      this.stopClosingAtExit = () => process.off('exit', closeAtExit);
    }
    const socket = this.proxy.listen(report);
    releases.push(() => socket.close());
    return { kind: 'proxy', socketPath: socket.socketPath, port: DEFAULT_PROXY_PORT };
  }

  /** Closes the proxy, if one was started: its sockets and folder go. */
  async dispose(): Promise<void> {
    const proxy = this.proxy;
    this.proxy = undefined;
    this.stopClosingAtExit?.();
    this.stopClosingAtExit = undefined;
    await proxy?.close();
  }
}

type PlannedCommand = Extract<ReturnType<typeof planCommand>, { kind: 'planned' }>;

/** How many times a command is planned when the disk changes between its plan and its holds. */
const PLAN_ATTEMPTS = 3;

/**
 * Holds every protected path the plan binds, in the plan's order (a folder before what lies in
 * it), making those that are missing. Each release goes to `releases`; throws when a placeholder
 * cannot be made.
 */
function holdProtectedPaths(
  outcome: PlannedCommand,
  holdsFolder: string,
  releases: (() => void)[],
): void {
  for (const item of outcome.protected) {
    releases.push(holdPlaceholder(holdsFolder, item.path, item.kind));
  }
}

/** The last held first: a placeholder folder is empty again before it is removed. */
function releaseInReverse(releases: readonly (() => void)[]): void {
  for (const release of [...releases].reverse()) release();
}
