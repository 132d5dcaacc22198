/**
 * What a sandboxed command needs to reach `sandbox.allowedHosts` through Loom's proxy
 * (src/sandbox/network-proxy.ts): the bwrap options that bind the proxy's Unix socket and the
 * bridge script (src/sandbox/proxy-bridge.mjs) into the sandbox, the proxy variables, and the
 * shell text that starts the bridge before the command.
 * Inside the sandbox both files sit in /tmp/.loom-proxy/, so `bwrapArgs` must come after the
 * option that gives the sandbox its own /tmp (`--tmpfs /tmp`): the rest of the file system is
 * mounted read-only, where bwrap cannot make the mount points. The sandbox needs
 * `--unshare-net`, so that 127.0.0.1:PORT is the sandbox's own loopback, and should have
 * `--unshare-pid`, so the bridge dies with the command's first process at once (without it the
 * bridge notices within 100 ms that the shell is gone and exits).
 * How the command starts: `wrapCommand` puts one line before it, run by the same shell:
 *   p=$(NODE BRIDGE SOCKET PORT $$ </dev/null 2>&1 &); [ "$p" = "ready PORT" ] || exit 125
 * The bridge runs in the background and writes `ready PORT` on the command substitution's pipe
 * once it listens, then lets the pipe go, which ends the substitution: the command starts the
 * moment the port is open, with no polling. A bridge that cannot start writes why and exits,
 * and the command does not run: the shell exits 125 with that reason on stderr.
 */
import { fileURLToPath } from 'node:url';

/** Where the sandbox sees the proxy's files. */
export const SANDBOX_PROXY_FOLDER = '/tmp/.loom-proxy';
export const SANDBOX_PROXY_SOCKET = `${SANDBOX_PROXY_FOLDER}/proxy.sock`;
export const SANDBOX_PROXY_BRIDGE = `${SANDBOX_PROXY_FOLDER}/bridge.mjs`;

/** The loopback port the bridge listens on inside the sandbox (its own network namespace). */
export const DEFAULT_PROXY_PORT = 47_801;

/** The exit status of a wrapped command whose bridge did not start. */
export const BRIDGE_FAILED_STATUS = 125;

/**
 * The bridge script as shipped: next to this module in src/sandbox/ (under tsx), dist/sandbox/
 * (tsc's build) and dist/bundle/ (the bundled chunks), where scripts/bundle.mjs copies it.
 */
export function bridgeScriptPath(): string {
  return fileURLToPath(new URL('./proxy-bridge.mjs', import.meta.url));
}

export interface ProxyNetworkOptions {
  /** The host path of the proxy's socket (`startNetworkProxy(...).socketPath`). */
  readonly socketPath: string;
  /** The loopback port inside the sandbox; DEFAULT_PROXY_PORT when absent. */
  readonly port?: number;
  /** The host path of proxy-bridge.mjs; bridgeScriptPath() when absent. */
  readonly bridgeScript?: string;
  /** The node binary that runs the bridge, a path visible inside the sandbox; Loom's own when absent. */
  readonly node?: string;
}

export interface ProxyNetworkSetup {
  /** bwrap options binding the socket and the bridge into SANDBOX_PROXY_FOLDER (after `--tmpfs /tmp`). */
  readonly bwrapArgs: string[];
  /** Proxy variables for the command's environment (or `--setenv NAME VALUE` each). */
  readonly env: Record<string, string>;
  /** Shell text (for `sh -c` or `bash -c`) that starts the bridge, waits for it, then runs `command`. */
  wrapCommand(command: string): string;
}

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function proxyNetworkSetup(options: ProxyNetworkOptions): ProxyNetworkSetup {
  const port = options.port ?? DEFAULT_PROXY_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`the sandbox proxy's port must be 1 to 65535, not ${port}`);
  }
  const node = options.node ?? process.execPath;
  const proxyUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
    ALL_PROXY: proxyUrl,
    all_proxy: proxyUrl,
    NO_PROXY: '',
    no_proxy: '',
  };
  const bwrapArgs = [
    '--ro-bind',
    options.socketPath,
    SANDBOX_PROXY_SOCKET,
    '--ro-bind',
    options.bridgeScript ?? bridgeScriptPath(),
    SANDBOX_PROXY_BRIDGE,
  ];
  const start = [
    shellQuote(node),
    shellQuote(SANDBOX_PROXY_BRIDGE),
    shellQuote(SANDBOX_PROXY_SOCKET),
    String(port),
    '"$$"',
  ].join(' ');
  const prefix =
    `__loom_proxy=$(${start} </dev/null 2>&1 &); ` +
    `[ "$__loom_proxy" = "ready ${port}" ] || { ` +
    `printf '%s\\n' "loom: the sandbox's network proxy did not start: \${__loom_proxy:-the bridge exited without a word}" >&2; ` +
    `exit ${BRIDGE_FAILED_STATUS}; }; unset __loom_proxy`;
  return {
    bwrapArgs,
    env,
    wrapCommand: (command) => `${prefix}\n${command}`,
  };
}
