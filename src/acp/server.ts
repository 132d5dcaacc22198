/**
 * Loom as an ACP agent: `initialize`, `session/new`, `session/load` (replays a stored session),
 * `session/prompt` (one Loom turn, or a `/goal` command, streamed as `session/update`; see
 * goal-prompts.ts for when goal rounds run) and `session/cancel`. It speaks
 * only through the given stream; the caller owns the transport and must keep anything else
 * off it.
 */

import * as acp from '@agentclientprotocol/sdk';
import { loomVersion as version } from '../core/version.js';
import { AcpSessions } from './acp-sessions.js';
import { answerPrompt, availableCommandsUpdate, pauseOnCancel } from './goal-prompts.js';
import { promptTextOf } from './prompt-turn.js';
import { replayUpdatesOf } from './session-updates.js';

export interface AcpServerOptions {
  stream: acp.Stream;
  /** `$LOOM_HOME`. */
  home: string;
  /** `--model`: the default model spec of every session; absent, `chooseModel` decides. */
  model?: string;
}

export interface AcpServer {
  /** Resolves when the client disconnects. */
  closed: Promise<void>;
  /** Cancels and closes every session; resolves once their logs are closed. */
  shutdown(cause: string): Promise<void>;
  /** For a process that must exit now: closes every session's open turn in its log, synchronously. */
  abandon(cause: string): void;
}

function warnAboutMcpServers(servers: readonly unknown[]): void {
  if (servers.length === 0) return;
  process.stderr.write(
    `loom acp: ignoring ${servers.length} MCP server(s): loom does not connect to MCP servers yet\n`,
  );
}

export function serveAcp(options: AcpServerOptions): AcpServer {
  let sessions: AcpSessions | undefined;
  const served = () => {
    if (!sessions) throw acp.RequestError.internalError(undefined, 'the connection is not open');
    return sessions;
  };
  const app = acp
    .agent({ name: 'loom' })
    .onConnect((connection) => {
      sessions = new AcpSessions({
        home: options.home,
        client: connection.client,
        ...(options.model !== undefined ? { model: options.model } : {}),
      });
    })
    .onRequest('initialize', () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
      },
      agentInfo: { name: 'loom', title: 'Loom', version },
      authMethods: [],
    }))
    .onRequest('session/new', ({ params }) => {
      warnAboutMcpServers(params.mcpServers);
      const session = served().open(params.cwd);
      // After the response: the SDK writes it in the microtasks that follow this handler.
      setImmediate(() => session.send(availableCommandsUpdate()));
      return { sessionId: session.id };
    })
    .onRequest('session/load', async ({ params }) => {
      warnAboutMcpServers(params.mcpServers);
      const session = served().resume(params.sessionId, params.cwd);
      for (const update of replayUpdatesOf(session.handle.log.events)) session.send(update);
      session.send(availableCommandsUpdate());
      await session.flushed();
      return {};
    })
    .onRequest('session/prompt', async ({ params }) => {
      const session = served().get(params.sessionId);
      return { stopReason: await answerPrompt(session, promptTextOf(params.prompt)) };
    })
    .onNotification('session/cancel', ({ params }) => {
      const session = served().find(params.sessionId);
      if (!session) return;
      pauseOnCancel(session, 'cancelled by the client');
      served().cancel(session, 'cancelled by the client');
    });
  const connection = app.connect(options.stream);
  return {
    closed: connection.closed,
    shutdown: async (cause) => {
      await sessions?.closeAll(cause);
      connection.close();
    },
    abandon: (cause) => sessions?.abandonAll(cause),
  };
}
