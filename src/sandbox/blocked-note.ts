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

/** A refused connection, which in the sandbox's own network namespace means nothing listens there. */
const REFUSED = /ECONNREFUSED|Connection refused|Failed to connect to (?:127\.0\.0\.1|localhost)/;

export interface BlockedContext {
  /** The paths the command cannot see. */
  hidden: readonly string[];
  /** The command has a network namespace of its own (loopback only). */
  ownNetwork: boolean;
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
  if (context.ownNetwork && REFUSED.test(output)) {
    return '[sandbox: the command has a network of its own (sandbox.network is false), so servers outside the sandbox, on loopback too, are out of reach; set sandbox.network: true, or retry with outside_sandbox: true (asks the user)]';
  }
  if (NO_NETWORK.test(output)) {
    return '[sandbox: the network was blocked (sandbox.network is false); set sandbox.network: true, or retry with outside_sandbox: true (asks the user)]';
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
