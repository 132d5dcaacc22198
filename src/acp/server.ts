/**
 * Loom as an ACP agent: `initialize`, `session/new`, `session/load` (replays a stored session),
 * `session/prompt` (one Loom turn, a `/goal` command or another slash command, streamed as
 * `session/update`, answered with the prompt's token usage; see goal-prompts.ts for when goal
 * rounds run and session-commands.ts for the others), `session/set_mode` (plan mode, see
 * session-modes.ts) and `session/cancel`. It speaks
 * only through the given stream; the caller owns the transport and must keep anything else
 * off it. The sessions (and with them the whole runtime: tools, layers, models) are loaded at
 * the first session request, so `initialize` is answered as soon as the protocol is loaded.
 */

import * as acp from '@agentclientprotocol/sdk';
import type { Usage as AcpUsage } from '@agentclientprotocol/sdk/unstable';
import { blobStoreKey } from '../core/blob-store.js';
import { loomVersion as version } from '../core/version.js';
import type { AcpSessions } from './acp-sessions.js';
import { applyChildContract, childContractOf, structuredAnswerMeta } from './child-contract.js';
import { advertisesCompaction } from './compaction-updates.js';
import { CHILD_CAPABILITIES_META_KEY, LOOM_CHILD_CAPABILITIES } from './loom-child-meta.js';
import { promptImagesOf, promptTextOf } from './prompt-turn.js';
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

export function serveAcp(options: AcpServerOptions): AcpServer {
  let client: acp.AgentContext | undefined;
  let loading: Promise<AcpSessions> | undefined;
  let goals: typeof import('./goal-prompts.js') | undefined;
  let modes: typeof import('./session-modes.js') | undefined;
  let commands: typeof import('./session-commands.js') | undefined;
  /** Set once `loading` has resolved: what shutdown closes and abandon interrupts. */
  let sessions: AcpSessions | undefined;
  /** Whether the client said at `initialize` that it renders elicitation forms. */
  let questionForms = false;
  /** What the client offered at `initialize` (its files and terminal serve the tools). */
  let clientCapabilities: acp.ClientCapabilities | undefined;
  const served = async (): Promise<AcpSessions> => {
    const connected = client;
    if (!connected) throw acp.RequestError.internalError(undefined, 'the connection is not open');
    loading ??= Promise.all([
      import('./acp-sessions.js'),
      import('./goal-prompts.js'),
      import('./session-modes.js'),
      import('./session-commands.js'),
    ]).then(([{ AcpSessions }, goalPrompts, sessionModes, sessionCommands]) => {
      goals = goalPrompts;
      modes = sessionModes;
      commands = sessionCommands;
      sessions = new AcpSessions({
        home: options.home,
        client: connected,
        questionForms,
        ...(clientCapabilities !== undefined ? { clientCapabilities } : {}),
        ...(options.model !== undefined ? { model: options.model } : {}),
      });
      return sessions;
    });
    return loading;
  };
  /** Loaded together with the sessions, so only after `served()` has resolved. */
  const goalPrompts = () => {
    if (!goals) throw acp.RequestError.internalError(undefined, 'the sessions are not loaded');
    return goals;
  };
  /** Plan mode as a session mode; loaded with the sessions. */
  const sessionModes = () => {
    if (!modes) throw acp.RequestError.internalError(undefined, 'the sessions are not loaded');
    return modes;
  };
  /** The other slash commands and the usage count; loaded with the sessions. */
  const sessionCommands = () => {
    if (!commands) throw acp.RequestError.internalError(undefined, 'the sessions are not loaded');
    return commands;
  };
  const app = acp
    .agent({ name: 'loom' })
    .onConnect((connection) => {
      client = connection.client;
    })
    .onRequest('initialize', ({ params }) => {
      questionForms = params.clientCapabilities?.elicitation?.form != null;
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: false },
          mcpCapabilities: { http: true, sse: true },
          // A Loom parent sends its subagents' contract in session/new `_meta` (child-contract.ts).
          _meta: { [CHILD_CAPABILITIES_META_KEY]: LOOM_CHILD_CAPABILITIES },
        },
        agentInfo: { name: 'loom', title: 'Loom', version },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params }) => {
      const contract = await childContractOf(params._meta);
      const session = await (await served()).open(
        params.cwd,
        params.mcpServers,
        contract.persona !== undefined ? { persona: contract.persona } : {},
      );
      await applyChildContract(session.handle, contract);
      const offered = await sessionCommands().availableCommandsUpdate(session);
      // After the response: the SDK writes it in the microtasks that follow this handler.
      setImmediate(() => {
        session.send(offered);
        sessionCommands().followPromptChanges(session);
      });
      const sessionModeState = sessionModes().sessionModesOf(session.handle);
      return { sessionId: session.id, ...(sessionModeState ? { modes: sessionModeState } : {}) };
    })
    .onRequest('session/load', async ({ params }) => {
      const session = await (await served()).resume(
        params.sessionId,
        params.cwd,
        params.mcpServers,
      );
      const compactions = advertisesCompaction(clientCapabilities);
      const blobs = session.handle.context.find(blobStoreKey);
      for (const update of replayUpdatesOf(session.handle.log.events, params.cwd, {
        compactions,
        ...(blobs ? { blobs } : {}),
      }))
        session.send(update);
      session.send(await sessionCommands().availableCommandsUpdate(session));
      sessionCommands().followPromptChanges(session);
      await session.flushed();
      const sessionModeState = sessionModes().sessionModesOf(session.handle);
      return sessionModeState ? { modes: sessionModeState } : {};
    })
    .onRequest('session/set_mode', async ({ params }) => {
      const session = (await served()).get(params.sessionId);
      sessionModes().setSessionMode(session.handle, params.modeId);
      return {};
    })
    .onRequest('session/prompt', async ({ params }) => {
      const session = (await served()).get(params.sessionId);
      const text = promptTextOf(params.prompt);
      const images = await promptImagesOf(params.prompt, session.handle.context.find(blobStoreKey));
      const command = sessionCommands().parseSessionCommand(text);
      if (images.length > 0 && (command || sessionCommands().customCommandOf(session, text))) {
        throw acp.RequestError.invalidParams(
          { field: 'prompt' },
          'images go with a plain prompt, not with a slash command',
        );
      }
      if (command) {
        await sessionCommands().runSessionCommand(session, command);
        await session.flushed();
        return { stopReason: 'end_turn' as const };
      }
      const from = session.handle.log.events.length;
      const custom = sessionCommands().customCommandOf(session, text);
      const stopReason = custom
        ? await sessionCommands().runCustomCommand(session, custom, (body) =>
            goalPrompts().answerPrompt(session, body),
          )
        : ((await sessionCommands().runMcpPrompt(session, text, (body) =>
            goalPrompts().answerPrompt(session, body),
          )) ??
          (await goalPrompts().answerPrompt(
            session,
            await sessionCommands().promptWithResources(session, text, params.prompt),
            images,
          )));
      const used = sessionCommands().sessionUsageOf(session.handle.log.events.slice(from));
      // ACP 2.4.0 carries a turn's tokens in the response as an unstable field; stable clients ignore it.
      const answer = structuredAnswerMeta(session.handle);
      const response: acp.PromptResponse & { usage: AcpUsage } = {
        stopReason,
        ...(answer ? { _meta: answer } : {}),
        usage: {
          inputTokens: used.input,
          outputTokens: used.output,
          totalTokens: used.input + used.output,
          ...(used.reasoning ? { thoughtTokens: used.reasoning } : {}),
          ...(used.cachedInput ? { cachedReadTokens: used.cachedInput } : {}),
          ...(used.cacheWrite ? { cachedWriteTokens: used.cacheWrite } : {}),
        },
      };
      return response;
    })
    .onNotification('session/cancel', ({ params }) => {
      // Before the sessions are loaded there is no session to cancel.
      const session = sessions?.find(params.sessionId);
      if (!session || !sessions) return;
      goalPrompts().pauseOnCancel(session, 'cancelled by the client');
      sessions.cancel(session, 'cancelled by the client');
    });
  const connection = app.connect(options.stream);
  return {
    closed: connection.closed,
    shutdown: async (cause) => {
      await (await loading?.catch(() => undefined))?.closeAll(cause);
      connection.close();
    },
    abandon: (cause) => sessions?.abandonAll(cause),
  };
}
