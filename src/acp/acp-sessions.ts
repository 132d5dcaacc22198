/**
 * The sessions one ACP connection serves: a Loom runtime per workspace folder (built on first
 * use, like `loom run` builds one) and, per session, its agent, its permission asker, the
 * editor's files and terminal for its tools when the client offers them, and an ordered queue
 * of `session/update` notifications (tool calls pending, in progress, then done). It owns every
 * agent it opens and closes them all on `closeAll()`.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import {
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
  RequestError,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { UserError } from '../base/errors.js';
import { buildRuntime, type LoomSetup } from '../cli/build-runtime.js';
import { closeOpenWork, interruptLiveSessions } from '../cli/interrupt-sessions.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { StartAgentOptions } from '../core/runtime.js';
import { permissionAskerKey, toolExecute, toolResultObserved } from '../core/tool-execution.js';
import { commandRunnerKey, workspaceFileAccessKey } from '../tools/index.js';
import { clientCommandRunner } from './client-command-runner.js';
import { clientFileAccess } from './client-file-access.js';
import { connectClientServers } from './client-mcp-servers.js';
import { advertisesCompaction } from './compaction-updates.js';
import { clientPermissionAsker } from './permission-asker.js';
import { clientQuestionAnswerer } from './question-answerer.js';
import { sendModeChanges } from './session-modes.js';
import { innerCallMeta, liveUpdateOf, updateView } from './session-updates.js';
import { refuseOtherWorkspace } from './session-workspace.js';
import type { ToolCallExtras } from './tool-call-details.js';

export interface AcpSession {
  id: string;
  handle: AgentHandle;
  setup: LoomSetup;
  /** Queues an update; notifications leave in the order they were queued. */
  send(update: SessionUpdate): void;
  /** Resolves once every queued update has been written. */
  flushed(): Promise<void>;
}

export interface AcpSessionsOptions {
  home: string;
  /** `--model`; absent, `chooseModel` decides ($LOOM_MODEL, config, the DeepSeek key). */
  model?: string;
  client: AgentContext;
  /** The client advertised form elicitation: questions are asked as forms. */
  questionForms?: boolean;
  /** What the client offered at `initialize`: its `fs` and `terminal` serve the tools. */
  clientCapabilities?: ClientCapabilities;
}

export class AcpSessions {
  private readonly runtimes = new Map<string, LoomSetup>();
  private readonly sessions = new Map<string, AcpSession>();
  /** Ends the MCP servers a client sent for one session; `closeAll` waits for them. */
  private readonly serverClosers = new Set<() => Promise<void>>();
  /** Agents `closeAll` closed whose turn may still be ending: their logs are still open. */
  private readonly closing = new Set<AgentHandle>();

  constructor(private readonly options: AcpSessionsOptions) {}

  /**
   * A new session in `cwd` (`options.persona` replaces its persona section), once the MCP
   * servers of its config and `mcpServers` (the client's, for this session only) have started or
   * failed.
   */
  async open(
    cwd: string,
    mcpServers: readonly McpServer[] = [],
    options: Pick<StartAgentOptions, 'persona'> = {},
  ): Promise<AcpSession> {
    const setup = this.runtimeFor(cwd);
    const session = this.attach(setup, setup.runtime.start(options), cwd);
    await this.connectServers(session, mcpServers);
    return session;
  }

  /**
   * A stored session continued in `cwd`, which must be its workspace (else invalid params naming
   * both folders); a session this connection already serves is returned as it is.
   */
  async resume(
    sessionId: string,
    cwd: string,
    mcpServers: readonly McpServer[] = [],
  ): Promise<AcpSession> {
    refuseOtherWorkspace(this.options.home, sessionId, cwd);
    const served = this.sessions.get(sessionId);
    if (served) return served;
    const setup = this.runtimeFor(cwd);
    try {
      const session = this.attach(setup, setup.runtime.resume(sessionId), cwd);
      await this.connectServers(session, mcpServers);
      return session;
    } catch (error) {
      if (error instanceof UserError && error.code === 'SESSION_NOT_FOUND')
        throw RequestError.sessionNotFound(sessionId);
      if (error instanceof UserError) throw RequestError.invalidParams(undefined, error.message);
      throw error;
    }
  }

  get(sessionId: string): AcpSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  }

  find(sessionId: string): AcpSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** Cancels the session's turn and its subagent tree. */
  cancel(session: AcpSession, cause: string): void {
    session.setup.subagents.services.children.cancelTree(session.id, cause);
  }

  /** Cancels and closes every agent, then resolves once their logs are closed. */
  async closeAll(cause: string): Promise<void> {
    const settled: Promise<void>[] = [];
    for (const session of this.sessions.values()) {
      this.cancel(session, cause);
      const { handle } = session;
      this.closing.add(handle);
      settled.push(handle.agent.whenIdle().finally(() => this.closing.delete(handle)));
      session.setup.subagents.services.children.releaseUnder(session.id);
      session.handle.close();
    }
    this.sessions.clear();
    for (const setup of this.runtimes.values()) setup.jobs.service.abandonAll(cause);
    await Promise.all(settled);
    const servers = [...this.serverClosers].map((close) => close());
    this.serverClosers.clear();
    await Promise.all([
      ...servers,
      ...[...this.runtimes.values()].map((setup) => setup.mcp.dispose()),
    ]);
  }

  /** For a process that must exit now: ends every session's open work in its log, synchronously. */
  abandonAll(cause: string): void {
    for (const setup of this.runtimes.values()) interruptLiveSessions(setup, cause);
    for (const handle of this.closing) closeOpenWork(handle.log);
  }

  private async connectServers(session: AcpSession, mcpServers: readonly McpServer[]) {
    const { setup, handle } = session;
    const workspace = setup.runtime.cwd;
    const configured = setup.mcp.ready(handle);
    const [, clientServers] = await Promise.all([
      configured,
      connectClientServers(handle, mcpServers, {
        config: setup.config,
        workspace,
        after: configured,
      }),
    ]);
    this.serverClosers.add(clientServers.close);
  }

  private runtimeFor(cwd: string): LoomSetup {
    if (!isAbsolute(cwd))
      throw RequestError.invalidParams(
        { field: 'cwd', value: cwd },
        'cwd must be an absolute path',
      );
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
      throw RequestError.invalidParams({ field: 'cwd', value: cwd }, `cwd ${cwd} is not a folder`);
    let setup = this.runtimes.get(cwd);
    if (!setup) {
      try {
        setup = buildRuntime({
          cwd,
          home: this.options.home,
          answerer: clientQuestionAnswerer(
            this.options.client,
            this.options.questionForms ?? false,
          ),
          ...(this.options.model !== undefined ? { model: this.options.model } : {}),
        });
      } catch (error) {
        // Such as no model or a bad config: the message says what to fix, so the editor shows it.
        if (error instanceof UserError) throw RequestError.invalidParams(undefined, error.message);
        throw error;
      }
      this.runtimes.set(cwd, setup);
    }
    return setup;
  }

  private attach(setup: LoomSetup, handle: AgentHandle, cwd: string): AcpSession {
    const id = handle.log.header.sessionId;
    const { client, clientCapabilities } = this.options;
    let tail = Promise.resolve();
    const session: AcpSession = {
      id,
      handle,
      setup,
      send(update) {
        tail = tail
          .then(() => client.notify('session/update', { sessionId: id, update }))
          .catch((error: unknown) => {
            process.stderr.write(`loom acp: session/update for ${id} failed: ${error}\n`);
          });
      },
      flushed: () => tail,
    };
    const extras = new Map<string, ToolCallExtras>();
    const compactions = advertisesCompaction(clientCapabilities);
    const view = {
      ...updateView(cwd, { compactions }),
      extrasOf: (callId: string) => extras.get(callId),
    };
    const { context } = handle;
    handle.onClose(context.provide(permissionAskerKey, clientPermissionAsker(client, id, cwd)));
    const files = clientFileAccess(client, id, clientCapabilities?.fs);
    if (files) handle.onClose(context.provide(workspaceFileAccessKey, files));
    if (clientCapabilities?.terminal === true) {
      const runner = clientCommandRunner(client, id, (callId, terminalId) => {
        extras.set(callId, { ...extras.get(callId), terminalId });
        if (!view.openCalls.has(callId)) return;
        session.send({
          sessionUpdate: 'tool_call_update',
          toolCallId: callId,
          content: [{ type: 'terminal', terminalId }],
          ...innerCallMeta(view.openCalls.get(callId)?.parentCallId),
        });
      });
      handle.onClose(context.provide(commandRunnerKey, runner));
    }
    handle.onClose(
      context.use(toolExecute, (execution, next) => {
        if (view.openCalls.has(execution.callId))
          session.send({
            sessionUpdate: 'tool_call_update',
            toolCallId: execution.callId,
            status: 'in_progress',
            ...innerCallMeta(view.openCalls.get(execution.callId)?.parentCallId),
          });
        return next(execution);
      }),
    );
    handle.onClose(
      context.on(toolResultObserved, ({ result }) => {
        if (result.metadata === undefined || !view.openCalls.has(result.callId)) return;
        extras.set(result.callId, { ...extras.get(result.callId), metadata: result.metadata });
      }),
    );
    handle.onClose(
      handle.log.onAppend((event) => {
        const update = liveUpdateOf(event, view);
        if (update) session.send(update);
        if (event.type === 'tool/result') extras.delete((event.data as { callId: string }).callId);
      }),
    );
    handle.onClose(sendModeChanges(handle, session.send));
    this.sessions.set(id, session);
    return session;
  }
}
