/**
 * The network part of a sandboxed command, as one seam: the network mode in, the bubblewrap
 * arguments, environment and command prefix out. `none` gives the command its own empty network
 * namespace (loopback only, nothing listening); `open` shares Loom's. `proxy` (`sandbox.
 * allowedHosts`) is the same empty namespace plus a way out through Loom's proxy
 * (network-proxy.ts): the proxy's Unix socket and the bridge script (proxy-bridge.mjs) bound
 * into /tmp/.loom-proxy/, the proxy variables pointing at the bridge's 127.0.0.1:PORT inside,
 * and a prefix that starts the bridge before the command. Pure: it starts nothing.
 *
 * The binds need the sandbox's own /tmp (`--tmpfs /tmp`) before them: the rest of the file
 * system is read-only, where bwrap cannot make the mount points. The prefix is
 *   /bin/sh -c 'p=$(NODE BRIDGE SOCKET PORT $$ </dev/null 2>&1 &); [ "$p" = "ready PORT" ] || exit 125; exec "$@"' loom-proxy-bridge
 * followed by the command's own program and arguments (`SHELL -c COMMAND`, or an MCP server):
 * the bridge runs in the background and writes `ready PORT` on the command substitution's pipe
 * once it listens, then lets the pipe go, so the command starts the moment the port is open,
 * with no polling, and `exec` keeps the pid the bridge watches. A bridge that cannot start
 * writes why, and the command does not run: exit 125 with that reason on stderr. Under
 * `--unshare-pid` the bridge dies with the sandbox's first process.
 */
import { fileURLToPath } from 'node:url';
import type { SandboxNetwork } from './contract.js';

export interface NetworkSetup {
  /** bubblewrap arguments (namespaces, binds); after `--tmpfs /tmp`. */
  args: string[];
  /** Variables added to the command's environment. */
  env: Record<string, string>;
  /** Program and arguments the command runs under inside the sandbox (the proxy's bridge). */
  prefix: string[];
}

/** Where the sandbox sees the proxy's files. */
export const SANDBOX_PROXY_FOLDER = '/tmp/.loom-proxy';
export const SANDBOX_PROXY_SOCKET = `${SANDBOX_PROXY_FOLDER}/proxy.sock`;
export const SANDBOX_PROXY_BRIDGE = `${SANDBOX_PROXY_FOLDER}/bridge.mjs`;

/** The loopback port the bridge listens on inside the sandbox (its own network namespace). */
export const DEFAULT_PROXY_PORT = 47_801;

/** The exit status of a command whose bridge did not start. */
export const BRIDGE_FAILED_STATUS = 125;

/**
 * The bridge script as shipped: next to this module in src/sandbox/ (under tsx), dist/sandbox/
 * (tsc's build) and dist/bundle/ (the bundled chunks), where scripts/bundle.mjs copies it.
 */
export function bridgeScriptPath(): string {
  return fileURLToPath(new URL('./proxy-bridge.mjs', import.meta.url));
}

/** How the bridge is run; the defaults are Loom's own node and the shipped script. */
export interface BridgeOptions {
  /** The node binary, a path visible inside the sandbox; default `process.execPath`. */
  node?: string;
  /** The host path of proxy-bridge.mjs; default bridgeScriptPath(). */
  script?: string;
}

/** `text` as one single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function proxySetup(
  network: Extract<SandboxNetwork, { kind: 'proxy' }>,
  bridge: BridgeOptions,
): NetworkSetup {
  const { port } = network;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`the sandbox proxy's port must be 1 to 65535, not ${port}`);
  }
  const url = `http://127.0.0.1:${port}`;
  const start = [
    shellQuote(bridge.node ?? process.execPath),
    shellQuote(SANDBOX_PROXY_BRIDGE),
    shellQuote(SANDBOX_PROXY_SOCKET),
    String(port),
    '"$$"',
  ].join(' ');
  const script =
    `__loom_proxy=$(${start} </dev/null 2>&1 &); ` +
    `[ "$__loom_proxy" = "ready ${port}" ] || { ` +
    `printf '%s\\n' "loom: the sandbox's network proxy did not start: \${__loom_proxy:-the bridge exited without a word}" >&2; ` +
    `exit ${BRIDGE_FAILED_STATUS}; }; unset __loom_proxy; exec "$@"`;
  return {
    args: [
      '--unshare-net',
      '--ro-bind',
      network.socketPath,
      SANDBOX_PROXY_SOCKET,
      '--ro-bind',
      bridge.script ?? bridgeScriptPath(),
      SANDBOX_PROXY_BRIDGE,
    ],
    // NO_PROXY empty: curl and others would otherwise go straight to 127.0.0.1 and localhost,
    // which inside the sandbox are its own loopback, not the host's.
    env: {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      ALL_PROXY: url,
      all_proxy: url,
      NO_PROXY: '',
      no_proxy: '',
    },
    prefix: ['/bin/sh', '-c', script, 'loom-proxy-bridge'],
  };
}

export function networkSetup(network: SandboxNetwork, bridge: BridgeOptions = {}): NetworkSetup {
  switch (network.kind) {
    case 'none':
      return { args: ['--unshare-net'], env: {}, prefix: [] };
    case 'open':
      return { args: [], env: {}, prefix: [] };
    case 'proxy':
      return proxySetup(network, bridge);
    default: {
      const unknown: never = network;
      throw new Error(`unknown sandbox network ${JSON.stringify(unknown)}`);
    }
  }
}
