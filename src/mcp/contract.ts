/**
 * The MCP client's seam: the servers a runtime connects to (from config, a project `.mcp.json` or
 * an ACP client), what each one's start came to, the session event that records a failed start
 * and the error codes of MCP tools. Declarations only; the SDK is never imported from here, so
 * reading this module never loads it.
 */
import { LoomError } from '../base/errors.js';
import type { Context } from '../core/context.js';
import type { ToolCallRequest } from '../core/tool-execution.js';
import type { Usage } from '../llm/contract.js';

/** Where a server was declared, for messages and `loom mcp list`. */
export type McpServerSource = 'config' | 'project' | 'client';

/** A server as declared: `${NAME}` references are still unresolved (see expand-variables.ts). */
/**
 * How a sandboxed server starts: the sandbox's decision for a process in `cwd` with `env`
 * (the tools' `SandboxDecision`: a launcher to run the server under, or a refusal).
 */
export type McpSandboxLauncher = (
  cwd: string,
  env: Record<string, string>,
) =>
  | { kind: 'unconfined' }
  | { kind: 'refused'; message: string }
  | {
      kind: 'sandboxed';
      launch: { launcher: readonly string[]; env: NodeJS.ProcessEnv; ended(): void };
    };

export type McpServerDeclaration =
  | {
      transport: 'stdio';
      name: string;
      source: McpServerSource;
      /** The file it came from, or `the ACP client`. */
      origin: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      /** As declared (may refer to variables); relative to `workspace`; absent: the workspace. */
      cwd?: string;
      /** The workspace folder (absolute). */
      workspace: string;
      startTimeoutMs: number;
      /** Run under the sandbox (`mcp.servers.NAME.sandbox: true`). */
      sandbox?: true;
      /** `mcp.servers.NAME.sampling`; absent: `ask`. */
      sampling?: McpSamplingPolicy;
    }
  | {
      /** `http`: streamable HTTP; `sse`: the older HTTP+SSE (an event stream and POSTs). */
      transport: 'http' | 'sse';
      name: string;
      source: McpServerSource;
      origin: string;
      url: string;
      headers: Record<string, string>;
      startTimeoutMs: number;
      /** `mcp.servers.NAME.sampling`; absent: `ask`. */
      sampling?: McpSamplingPolicy;
    }
  | {
      /** An entry Loom cannot use (an unknown `type`, a bad field): it fails to start, alone. */
      transport: 'invalid';
      name: string;
      source: McpServerSource;
      origin: string;
      /** What is wrong, naming the file and field, and how to fix it. */
      problem: string;
      startTimeoutMs: number;
    };

/**
 * Whether a server's `sampling/createMessage` runs on the calling agent's model: `allow` at once,
 * `ask` after the human approves it (the default), `deny` never.
 */
export type McpSamplingPolicy = 'allow' | 'ask' | 'deny';
export const DEFAULT_SAMPLING_POLICY: McpSamplingPolicy = 'ask';

/**
 * The agent a server's request (an elicitation, a sampling request) is answered for: the one
 * whose tool call is in flight on that server (the newest, when several are), or with none in
 * flight the session the layer names (its only root session).
 */
export interface McpCaller {
  /** The agent's session id. */
  agentId: string;
  /** The agent's scope: its services (questions, permission asker, the runtime). */
  context: Context;
  /** The call in flight; absent for a request that came between calls. */
  call?: ToolCallRequest;
  /** The server's own name for the tool called. */
  tool?: string;
}

/** A root a server is offered (`roots/list`): a folder as a `file://` URI, and its name. */
export interface McpRoot {
  uri: string;
  name: string;
}

/**
 * What every connection of a runtime shares: the roots it offers and the time limits of a
 * call (see config/schema.ts `mcp.callTimeoutMs`, `mcp.maxCallMs`, `mcp.roots`).
 */
export interface McpClientSettings {
  /** The workspace first, then `mcp.roots`; a server asks for them with `roots/list`. */
  roots: readonly McpRoot[];
  /** A call is cancelled after this long without its answer or a progress notification. */
  callTimeoutMs: number;
  /** A call is cancelled after this long, whatever it sends. */
  maxCallMs: number;
}

/** One tool of a server as the agents get it, or why it was left out. */
export interface McpToolReport {
  /** The server's own name for it. */
  name: string;
  /** `mcp__SERVER__TOOL`; absent when it was left out. */
  agentName?: string;
  /** Called as a task (`execution.taskSupport: "required"`): created, polled, its result fetched. */
  task?: true;
  /** Why it was left out (a name too long, a schema ajv rejects); absent when it is offered. */
  problem?: string;
}

/**
 * Why a server did not start: `needs-login` is an HTTP server whose OAuth login is missing,
 * expired past refreshing or revoked (`loom mcp login NAME` fixes it).
 */
export type McpFailureReason = 'timeout' | 'error' | 'needs-login';

/** What one server's start came to. A failed server's tools are absent for the whole session. */
export type McpServerStatus =
  | { state: 'connected'; tools: McpToolReport[]; serverVersion?: string }
  | { state: 'failed'; reason: McpFailureReason; message: string };

export interface McpServerReport {
  name: string;
  transport: McpServerDeclaration['transport'];
  source: McpServerSource;
  status: McpServerStatus;
}

/** The session event of a server that did not start: logged once per root session. */
export interface McpServerFailedEvent {
  server: string;
  transport: McpServerDeclaration['transport'];
  source: McpServerSource;
  reason: McpFailureReason;
  /** Credential values are never in it. */
  message: string;
}

/** A server's prompt ran as a command (`/mcp__SERVER__PROMPT args`): its text is the next user message. */
export interface McpPromptRunEvent {
  server: string;
  prompt: string;
  /** The arguments as mapped to the prompt's declared ones. */
  arguments: Record<string, string>;
}

/**
 * A server said its tools changed (`notifications/tools/list_changed`) and they were listed
 * again: the agent's tool set from its next request on. The request's `prompt/blob` holds the
 * exact tools sent; this says why they changed.
 */
export interface McpToolsChangedEvent {
  server: string;
  /** Its tools now (`mcp__SERVER__TOOL`). */
  tools: string[];
  added: string[];
  removed: string[];
}

/**
 * A server said its prompts changed (`notifications/prompts/list_changed`) and they were listed
 * again: the slash commands of every agent that reaches it (terminal completion, an ACP
 * client's `available_commands_update`).
 */
export interface McpPromptsChangedEvent {
  server: string;
  /** Its prompts now, as commands (`mcp__SERVER__PROMPT`). */
  prompts: string[];
  added: string[];
  removed: string[];
}

/**
 * A server said its resources changed (`notifications/resources/list_changed`) and they were
 * listed again (with its templates): what `@server:uri` completes from now on.
 */
export interface McpResourcesChangedEvent {
  server: string;
  /** Its resources and templates now, as mentions (`server:uri`, `server:uriTemplate`). */
  resources: string[];
  added: string[];
  removed: string[];
}

/**
 * A server's `sampling/createMessage`, in the calling agent's log. Its tokens are also in the
 * `model/side-request` (purpose `mcp-sampling`) logged beside it, which is what usage and
 * budgets add up.
 */
export interface McpSamplingEvent {
  server: string;
  /** The tool call it came during (`mcp__SERVER__TOOL`'s call id) and the server's tool name. */
  callId?: string;
  tool?: string;
  policy: McpSamplingPolicy;
  /** `answered`: the model answered; `refused`: not run (denied, not approved); `failed`: the model failed. */
  outcome: 'answered' | 'refused' | 'failed';
  model?: string;
  usage?: Usage;
  /** Why it was refused or failed. */
  message?: string;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    /** A server's sampling request: run on the agent's model, refused, or failed. */
    'mcp/sampling': McpSamplingEvent;
    /** An MCP server failed to start (or timed out): its tools are absent from the session. */
    'mcp/server-failed': McpServerFailedEvent;
    /** An MCP server's tools changed mid-session; the next request offers the new set. */
    'mcp/tools-changed': McpToolsChangedEvent;
    /** A server's prompt ran as a command; the user message that follows is its text. */
    'mcp/prompt-run': McpPromptRunEvent;
    /** An MCP server's prompts changed; its slash commands are the new ones. */
    'mcp/prompts-changed': McpPromptsChangedEvent;
    /** An MCP server's resources changed; `@server:uri` completes the new ones. */
    'mcp/resources-changed': McpResourcesChangedEvent;
  }
}

export type McpErrorCode =
  | 'MCP_SERVER_UNAVAILABLE'
  | 'MCP_TOOL_ERROR'
  | 'MCP_CALL_TIMEOUT'
  | 'MCP_LOGIN_FAILED';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<McpErrorCode, true> {}
}

/**
 * `MCP_SERVER_UNAVAILABLE`: the server could not be reached or restarted, or it died during the
 * call; `MCP_TOOL_ERROR`: the server answered the call with a protocol error; `MCP_CALL_TIMEOUT`:
 * the call was cancelled after `mcp.callTimeoutMs` without a word or `mcp.maxCallMs` in all;
 * `MCP_LOGIN_FAILED`: `loom mcp login` could not complete (no OAuth metadata, the user refused,
 * the wait timed out, the token exchange failed).
 */
export class McpError extends LoomError<McpErrorCode> {}

/** Separates the parts of `mcp__SERVER__TOOL`. */
export const MCP_NAME_SEPARATOR = '__';
export const MCP_TOOL_PREFIX = `mcp${MCP_NAME_SEPARATOR}`;
/** The slash command (without its `/`) that runs a server's prompt: `mcp__SERVER__PROMPT`. */
export function mcpPromptCommand(server: string, prompt: string): string {
  return `${MCP_TOOL_PREFIX}${server}${MCP_NAME_SEPARATOR}${prompt}`;
}
/** The builtin tool that reads a connected server's resource (resource-tool.ts). */
export const READ_MCP_RESOURCE = 'read_mcp_resource';

/** The default of `mcp.startTimeoutMs`: see config/schema.ts for why. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/** The default of `mcp.outputLimit`, the same cap as a bash command's output. */
export const DEFAULT_OUTPUT_LIMIT = 30_000;
/** The default of `mcp.callTimeoutMs`: the MCP SDK's own request timeout. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** The default of `mcp.maxCallMs`: ten minutes. */
export const DEFAULT_MAX_CALL_MS = 600_000;
