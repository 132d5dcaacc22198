/**
 * The line added to a failed sandboxed command's result when its output shows the sandbox
 * stopped it: a write to the read-only file system, the network missing, a hidden path. It
 * names the key that allows it (`sandbox.writable`, `sandbox.network` / `sandbox.allowedHosts`,
 * `sandbox.hidden`, `outside_sandbox`). Pure; a guess from the output, never a claim about
 * output that shows none of these.
 */

const READ_ONLY = /Read-only file system|EROFS/;
const NO_NETWORK =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|getaddrinfo ENOTFOUND|Name or service not known|No address associated with hostname/;

/** `hidden` are the paths the command cannot see. */
/** Protected paths as they appear in a command's error message. */
const PROTECTED =
  /(?:^|[\s'"/])(\.git\/hooks|\.git\/config|\.loom|\.claude|\.mcp\.json)(?:[/'":\s]|$)/m;

/** Loom's proxy refused the host (its 403 body, or how curl reports a 403). */
const PROXY_REFUSED =
  /does not allow network access to (\S+?)\. |CONNECT tunnel failed, response 403|returned error: 403/;

/** A refused connection, which in the sandbox's own network namespace means nothing listens there. */
const REFUSED = /ECONNREFUSED|Connection refused|Failed to connect to (?:127\.0\.0\.1|localhost)/;

export interface BlockedContext {
  /** The paths the command cannot see. */
  hidden: readonly string[];
  /** The command has a network namespace of its own (loopback only). */
  ownNetwork: boolean;
  /** It reaches `sandbox.allowedHosts` through Loom's proxy. */
  proxied?: boolean;
}

/** How the network is reached, and the keys that change it, for the notes below. */
function networkNote(what: string, proxied: boolean | undefined): string {
  const how = proxied
    ? "only the hosts of sandbox.allowedHosts are reachable, through Loom's proxy (HTTP_PROXY and HTTPS_PROXY); add the host to sandbox.allowedHosts or set sandbox.network: true"
    : 'set sandbox.network: true (or list the host in sandbox.allowedHosts)';
  return `[sandbox: ${what}; ${how}, or retry with outside_sandbox: true (asks the user)]`;
}

export function blockedNote(output: string, context: BlockedContext): string | undefined {
  const { hidden } = context;
  const protectedPath = READ_ONLY.test(output) ? PROTECTED.exec(output)?.[1] : undefined;
  if (protectedPath !== undefined) {
    return `[sandbox: ${protectedPath} stays read-only to sandboxed commands, since a hook or config there runs outside the sandbox at the next run; change it with write_file or edit_file (the user is asked), or retry with outside_sandbox: true (asks the user)]`;
  }
  if (READ_ONLY.test(output)) {
    return '[sandbox: a write outside the writable folders was blocked; the workspace, /tmp and sandbox.writable are writable, and .git/hooks, .git/config, .loom/, .claude/ and .mcp.json stay read-only. Add the folder to sandbox.writable, or retry with outside_sandbox: true (asks the user)]';
  }
  const refusedByProxy = context.proxied ? PROXY_REFUSED.exec(output) : null;
  if (refusedByProxy) {
    const host = refusedByProxy[1] === undefined ? 'the host' : refusedByProxy[1];
    return `[sandbox: Loom's proxy refused ${host}: it is not in sandbox.allowedHosts; add it there ("host" or "host:port"), or retry with outside_sandbox: true (asks the user)]`;
  }
  if (context.ownNetwork && REFUSED.test(output)) {
    return networkNote(
      'the command has a network of its own (sandbox.network is false), so servers outside the sandbox, on loopback too, are out of reach directly',
      context.proxied,
    );
  }
  if (NO_NETWORK.test(output)) {
    return networkNote('the network was blocked (sandbox.network is false)', context.proxied);
  }
  const seen = hidden.find(
    (path) =>
      output.includes(path) &&
      /No such file or directory|Permission denied|ENOENT|EACCES/.test(output),
  );
  if (seen !== undefined) {
    return `[sandbox: ${seen} is hidden from sandboxed commands ($HOME's credentials, $LOOM_HOME and sandbox.hidden); retry with outside_sandbox: true (asks the user) if the command must read it]`;
  }
  return undefined;
}
