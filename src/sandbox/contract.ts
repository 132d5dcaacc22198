/**
 * The sandbox's shapes: its settings (config `sandbox:` with defaults applied), how a command
 * reaches the network, the plan one command's bubblewrap arguments are built from, and its one
 * event. Types, defaults and the event's hook only; nothing here touches the file system or
 * starts a process.
 */
import { defineEmit } from '../core/context.js';

export type SandboxMode = 'workspace-write' | 'read-only' | 'off';

export interface SandboxSettings {
  /** Default `workspace-write`. */
  mode: SandboxMode;
  /** Default false. */
  network: boolean;
  /** `host`, `host:port` or `*.domain` (host-pattern.ts); default none. Served by Loom's proxy when `network` is false. */
  allowedHosts: readonly string[];
  /** Absolute, `~/...`, or relative to the workspace; default none. */
  writable: readonly string[];
  /** Absolute, `~/...`, or relative to the workspace; default none (beside the built-in list). */
  hidden: readonly string[];
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  mode: 'workspace-write',
  network: false,
  allowedHosts: [],
  writable: [],
  hidden: [],
};

/**
 * How a sandboxed command reaches the network: not at all (its own empty network namespace),
 * as Loom does, or only through Loom's allow-list proxy (a Unix socket bound into the sandbox,
 * a bridge listening on 127.0.0.1:PORT inside it; see `sandbox-network.ts`).
 */
export type SandboxNetwork =
  | { kind: 'none' }
  | { kind: 'open' }
  | { kind: 'proxy'; socketPath: string; port: number };

/** Paths below `$HOME` hidden from every sandboxed command (credentials of common tools). */
export const HOME_SECRETS = [
  '.ssh',
  '.aws',
  '.config/gcloud',
  '.netrc',
  '.docker',
  '.gnupg',
  '.kube',
  '.azure',
  '.config/gh',
  '.config/hub',
  '.git-credentials',
  '.config/git/credentials',
  '.password-store',
  '.local/share/keyrings',
  '.vault-token',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
] as const;

/**
 * Where the machine's daemons keep their Unix sockets (Docker's, D-Bus's, a database's): a
 * socket on a read-only file system still accepts connections, and Docker's alone gives root
 * outside. Hidden like the secrets; `sandbox.writable` shows one of them again.
 */
export const SOCKET_FOLDERS = ['/run', '/var/run'] as const;

/**
 * Paths inside the workspace that run outside the sandbox later (git hooks and config, Loom's
 * and Claude Code's project settings, MCP servers): read-only to sandboxed commands, and written
 * by the file tools only after an `ask`.
 */
export const PROTECTED_PATHS = [
  { path: '.git/hooks', kind: 'folder' },
  { path: '.git/config', kind: 'file' },
  { path: '.loom', kind: 'folder' },
  { path: '.claude', kind: 'folder' },
  { path: '.mcp.json', kind: 'file' },
] as const;

/** Everything one command's bubblewrap arguments are built from; absolute paths throughout. */
export interface SandboxPlan {
  /** The folder the command starts in. */
  cwd: string;
  /**
   * Bound in this order over the read-only file system: the workspace (writable, or read-only
   * in `read-only` mode), `sandbox.writable`, then the protected paths read-only.
   */
  binds: readonly { path: string; writable: boolean }[];
  /** Covered by an empty read-only folder. */
  hiddenFolders: readonly string[];
  /** Covered by /dev/null. */
  hiddenFiles: readonly string[];
  network: SandboxNetwork;
}

/** The folder each command gets as its own empty /tmp (TMPDIR points there). */
export const SANDBOX_TMP = '/tmp';

/** One request a sandboxed command made through Loom's proxy, and whether it was let through. */
export interface SandboxNetworkRequest {
  /** The host as requested, normalized (lower case, no brackets, no trailing dot); never resolved. */
  readonly host: string;
  readonly port: number;
  /** `CONNECT`, or the method of a plain HTTP request (`GET`, `POST`…). */
  readonly method: string;
  readonly allowed: boolean;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    /** A `bash` command's request through the allow-list proxy (a log event; the model does not see it). */
    'sandbox/network': SandboxNetworkRequest;
  }
}

/** Emitted on the calling agent's scope for each request its command makes through the proxy. */
export const sandboxNetworkRequested = defineEmit<SandboxNetworkRequest>('sandbox/network');
