/**
 * The network part of a sandboxed command, as one seam: the network mode in, the bubblewrap
 * arguments, environment and command prefix out. `none` gives the command its own empty network
 * namespace (loopback only, nothing listening); `open` shares Loom's. `proxy` is where the
 * allow-list proxy plugs in: the same empty namespace plus the proxy's Unix socket bound in,
 * the proxy variables pointing at the in-sandbox bridge, and the bridge started first (its
 * prefix comes from the proxy module). Pure: it starts nothing.
 */
import type { SandboxNetwork } from './contract.js';

export interface NetworkSetup {
  /** bubblewrap arguments (namespaces, binds). */
  args: string[];
  /** Variables added to the command's environment. */
  env: Record<string, string>;
  /** Program and arguments the shell runs under inside the sandbox (the proxy's bridge). */
  prefix: string[];
}

/**
 * `bridge` builds the in-sandbox bridge's command prefix for a proxy mode (it must start the
 * bridge on 127.0.0.1:PORT, forwarding to the socket, then `exec` the rest of its arguments).
 */
export function networkSetup(
  network: SandboxNetwork,
  bridge?: (mode: Extract<SandboxNetwork, { kind: 'proxy' }>) => string[],
): NetworkSetup {
  switch (network.kind) {
    case 'none':
      return { args: ['--unshare-net'], env: {}, prefix: [] };
    case 'open':
      return { args: [], env: {}, prefix: [] };
    case 'proxy': {
      const url = `http://127.0.0.1:${network.port}`;
      return {
        args: ['--unshare-net', '--bind', network.socketPath, network.socketPath],
        env: { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url },
        prefix: bridge ? bridge(network) : [],
      };
    }
    default: {
      const unknown: never = network;
      throw new Error(`unknown sandbox network ${JSON.stringify(unknown)}`);
    }
  }
}
