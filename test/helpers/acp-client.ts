/**
 * An ACP test client: the session updates it received (with waits on the first that matches),
 * the agent's text among them, and a connection to Loom's ACP server in this process over a pair
 * of in-memory streams. Waits are on received updates, never on time.
 */
import * as acp from '@agentclientprotocol/sdk';
import { serveAcp } from '../../src/acp/server.js';

export type Update = acp.SessionUpdate;

export type UpdateLog = ReturnType<typeof updateLog>;

export function updateLog() {
  const updates: Update[] = [];
  const waiters: Array<{ match: (update: Update) => boolean; resolve: (update: Update) => void }> =
    [];
  return {
    updates,
    push(update: Update) {
      updates.push(update);
      for (const waiter of [...waiters]) {
        if (!waiter.match(update)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(update);
      }
    },
    /** The first update from index `from` on that matches, once it arrives. */
    waitFor(match: (update: Update) => boolean, from = 0): Promise<Update> {
      const seen = updates.slice(from).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** A tool call's final update: `completed` or `failed` (not `in_progress`). */
export function isToolResult(update: Update): boolean {
  return (
    update.sessionUpdate === 'tool_call_update' &&
    (update.status === 'completed' || update.status === 'failed')
  );
}

/** The agent's message text in `updates`, joined. */
export function messageText(updates: readonly Update[]): string {
  return updates
    .map((update) =>
      update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text'
        ? update.content.text
        : '',
    )
    .join('');
}

export async function initialize(
  agent: acp.ClientContext,
  clientCapabilities: acp.ClientCapabilities = {},
) {
  return agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
}

/** Sends `text` as a prompt; resolves with its stop reason and the updates it streamed. */
export async function promptFor(
  agent: acp.ClientContext,
  log: UpdateLog,
  sessionId: string,
  text: string,
): Promise<{ stopReason: acp.StopReason; updates: Update[]; text: string }> {
  const from = log.updates.length;
  const response = await agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text }],
  });
  const updates = log.updates.slice(from);
  return { stopReason: response.stopReason, updates, text: messageText(updates) };
}

/** How a test client answers what the agent asks it; an unexpected request fails. */
export interface ClientAnswers {
  /** Answers the agent's `session/request_permission`. */
  permission?: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse;
  /** Answers the agent's `elicitation/create` (a client that advertised forms). */
  elicitation?: (request: acp.CreateElicitationRequest) => acp.CreateElicitationResponse;
  /** Serves the agent's `fs/*` and `terminal/*` requests (a client that advertised them). */
  editor?: EditorHandlers;
  /**
   * Gets each `session/update` as the SDK's client parsed it (its zod schema, which drops a
   * field it cannot read rather than failing): compared with what was sent, it shows a mistake.
   */
  parsed?: UpdateLog;
}

/** An editor's side of the file and terminal methods. */
export interface EditorHandlers {
  readTextFile(request: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeTextFile(request: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse>;
  createTerminal(request: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse>;
  terminalOutput(request: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(
    request: acp.WaitForTerminalExitRequest,
  ): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(request: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse>;
  releaseTerminal(request: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse>;
}

/**
 * `stream` with every `session/update` it carries in recorded in `log` as the message is read,
 * before the connection handles it. The SDK hands a response to its request at once but runs
 * a notification through its handlers over several microtasks, so a log filled by a handler can
 * still miss updates the agent sent before answering; this one cannot.
 */
export function recordingUpdates(stream: acp.Stream, log: UpdateLog): acp.Stream {
  const tap = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      if ('method' in message && message.method === 'session/update' && !('id' in message)) {
        log.push((message.params as acp.SessionNotification).update);
      }
      controller.enqueue(message);
    },
  });
  return { writable: stream.writable, readable: stream.readable.pipeThrough(tap) };
}

/** An ACP client that answers with `answers`; connect it through `recordingUpdates`. */
export function testClient(answers: ClientAnswers) {
  const editor = (): EditorHandlers => {
    if (!answers.editor) throw new Error('no file or terminal request was expected');
    return answers.editor;
  };
  return (
    acp
      .client({ name: 'loom-test' })
      .onRequest('fs/read_text_file', ({ params }) => editor().readTextFile(params))
      .onRequest('fs/write_text_file', ({ params }) => editor().writeTextFile(params))
      .onRequest('terminal/create', ({ params }) => editor().createTerminal(params))
      .onRequest('terminal/output', ({ params }) => editor().terminalOutput(params))
      .onRequest('terminal/wait_for_exit', ({ params }) => editor().waitForTerminalExit(params))
      .onRequest('terminal/kill', ({ params }) => editor().killTerminal(params))
      .onRequest('terminal/release', ({ params }) => editor().releaseTerminal(params))
      // Recorded by `recordingUpdates` as it is read; here only as parsed, when asked.
      .onNotification('session/update', ({ params }) => answers.parsed?.push(params.update))
      .onRequest('session/request_permission', ({ params }) => {
        if (!answers.permission) throw new Error('no permission request was expected');
        return answers.permission(params);
      })
      .onRequest('elicitation/create', ({ params }) => {
        if (!answers.elicitation) throw new Error('no elicitation was expected');
        return answers.elicitation(params);
      })
  );
}

/**
 * Serves ACP in this process with `home` and the scripted model file `model`, runs `op` as a
 * client, then shuts the server down (its sessions' logs closed) before resolving.
 */
export async function withAcpInProcess<T>(
  options: {
    home: string;
    model: string;
    /** Answers the agent's `session/request_permission`; absent, such a request fails. */
    permission?: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse;
    /** Answers the agent's `elicitation/create` (a client that advertised forms). */
    elicitation?: (request: acp.CreateElicitationRequest) => acp.CreateElicitationResponse;
    /** Serves `fs/*` and `terminal/*` (advertise them with `initialize(agent, capabilities)`). */
    editor?: EditorHandlers;
    /** Gets each update as the SDK's client parsed it (see `ClientAnswers.parsed`). */
    parsed?: UpdateLog;
    /**
     * Wraps what the server writes to the client (NDJSON bytes), such as to hold a message back
     * the way a slow reader at the end of a pipe does; default as it is.
     */
    serverOutput?: (output: WritableStream<Uint8Array>) => WritableStream<Uint8Array>;
  },
  op: (agent: acp.ClientContext, log: UpdateLog) => Promise<T>,
): Promise<T> {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const output = options.serverOutput?.(toClient.writable) ?? toClient.writable;
  const server = serveAcp({
    stream: acp.ndJsonStream(output, toServer.readable),
    home: options.home,
    model: `scripted:${options.model}`,
  });
  const log = updateLog();
  const client = testClient(options);
  try {
    return await client.connectWith(
      recordingUpdates(acp.ndJsonStream(toServer.writable, toClient.readable), log),
      (agent) => op(agent, log),
    );
  } finally {
    await server.shutdown('the test is over');
  }
}
