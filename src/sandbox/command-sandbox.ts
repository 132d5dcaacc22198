/**
 * The sandbox `bash` asks before each command (tools' `CommandSandbox` seam): bwrap found and
 * able to run, the plan read from the disk, placeholders made, and the launcher, environment
 * and blocked-output note handed back. A call with `outside_sandbox: true` runs unconfined only
 * when the permission gate admitted it (approved by the user, or an `allow` rule with
 * `sandbox: false`); anything else is refused, never run unconfined. Also starts MCP servers
 * marked `sandbox: true` the same way.
 */
import { join } from 'node:path';
import { errorMessage } from '../base/errors.js';
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
} from './contract.js';
import { heldPlaceholderKind, holdPlaceholder } from './placeholders.js';
import { absoluteSandboxPath, planCommand } from './sandbox-plan.js';

export interface SandboxOptions {
  settings: SandboxSettings;
  /** `$LOOM_HOME`: hidden from every command. */
  loomHome: string;
  /** Loom's environment (`HOME`, `PATH`); default `process.env`, read at each command. */
  environment?: NodeJS.ProcessEnv;
}

export class Sandbox implements CommandSandbox {
  /** The arguments of calls the permission gate admitted with `outside_sandbox: true`. */
  readonly admittedOutside = new WeakSet<object>();
  private readonly options: SandboxOptions;

  constructor(options: SandboxOptions) {
    this.options = options;
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
    const decision = this.launch(request.cwd, request.env);
    if (decision.kind === 'refused') {
      return { kind: 'refused', message: `bash was not run: ${decision.message}` };
    }
    return decision;
  }

  /** A process of `cwd` under the sandbox (an MCP server): its launcher, or why not. */
  launch(cwd: string, env: NodeJS.ProcessEnv): SandboxDecision {
    const environment = this.options.environment ?? process.env;
    const status = bwrapStatus(environment.PATH);
    if (!status.ok) return { kind: 'refused', message: status.message };
    const home = environment.HOME;
    const outcome = planCommand({
      settings: this.settings,
      workspace: cwd,
      home,
      loomHome: this.options.loomHome,
      network: this.network(),
    });
    if (outcome.kind === 'refused') return outcome;
    const releases: (() => void)[] = [];
    try {
      for (const placeholder of outcome.placeholders) {
        releases.push(holdPlaceholder(placeholder.path, placeholder.kind));
      }
      // A protected path that exists only as another command's placeholder is bound by this one
      // too: hold it, or that command's end would remove it before this one's bwrap binds it.
      const planned = new Set(outcome.placeholders.map((placeholder) => placeholder.path));
      for (const bind of outcome.plan.binds) {
        const kind = planned.has(bind.path) ? undefined : heldPlaceholderKind(bind.path);
        if (kind !== undefined) releases.push(holdPlaceholder(bind.path, kind));
      }
    } catch (error) {
      for (const release of releases) release();
      return {
        kind: 'refused',
        message: `the sandbox could not make a read-only placeholder for a protected path: ${errorMessage(error)}`,
      };
    }
    const { args, network } = bwrapArguments(outcome.plan);
    const hidden = [
      ...outcome.plan.hiddenFolders,
      ...outcome.plan.hiddenFiles,
      ...(home === undefined ? [] : HOME_SECRETS.map((name) => join(home, name))),
      this.options.loomHome,
      ...this.settings.hidden.map((path) => absoluteSandboxPath(path, cwd, home)),
    ];
    let ended = false;
    const launch: SandboxLaunch = {
      launcher: [status.path, ...args, '--', ...network.prefix],
      env: { ...env, ...network.env, TMPDIR: SANDBOX_TMP },
      ended() {
        if (ended) return;
        ended = true;
        for (const release of releases) release();
      },
      explain: (output) =>
        blockedNote(output, { hidden, ownNetwork: outcome.plan.network.kind !== 'open' }),
    };
    return { kind: 'sandboxed', launch };
  }

  /**
   * Where the allow-list proxy plugs in: with `allowedHosts` and `network: false` this is to
   * return `{ kind: 'proxy', socketPath, port }` of the running proxy. Until then such a
   * command has no network.
   */
  private network(): SandboxNetwork {
    return this.settings.network ? { kind: 'open' } : { kind: 'none' };
  }
}
