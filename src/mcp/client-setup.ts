/**
 * The one place Loom's MCP Client is made: the capabilities it declares and the requests and
 * notifications of the server it answers. Today: `roots` (`roots/list` answers the workspace and
 * `mcp.roots`; `listChanged: true`) and `tasks` (as the SDK's client supports them: a task store
 * answering `tasks/get`, `tasks/list`, `tasks/cancel`); `notifications/tools/list_changed`
 * goes to `onToolsChanged`; `elicitation` (form mode) goes to `elicit` and `sampling` (no tools)
 * to `sample`, both answered for the agent whose call is in flight (see server-connection.ts).
 * Loads the SDK; never starts a transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { loomVersion } from '../core/version.js';
import type { McpRoot } from './contract.js';
import type { ElicitationReply, FormElicitation } from './elicitation.js';
import type { SamplingRequest, SamplingResult } from './sampling.js';

export interface ClientHandlers {
  /** The roots a server is offered now (read at each `roots/list`). */
  roots(): readonly McpRoot[];
  /** The server said its tools changed. Must not throw. */
  onToolsChanged(): void;
  /** A form elicitation (URL mode is not declared, so never sent). */
  elicit(request: FormElicitation, signal: AbortSignal): Promise<ElicitationReply>;
  /** A sampling request; throws to refuse it. */
  sample(request: SamplingRequest, signal: AbortSignal): Promise<SamplingResult>;
}

export interface LoomClient {
  client: Client;
  /** Ends what the client holds besides its transport (the task store's timers). */
  dispose(): void;
}

export const CLIENT_CAPABILITIES: ClientCapabilities = {
  roots: { listChanged: true },
  tasks: { list: {}, cancel: {} },
  elicitation: { form: {} },
  sampling: {},
};

export function createClient(handlers: ClientHandlers): LoomClient {
  const taskStore = new InMemoryTaskStore();
  const client = new Client(
    { name: 'loom', version: loomVersion },
    { capabilities: CLIENT_CAPABILITIES, taskStore },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: handlers.roots().map((root) => ({ uri: root.uri, name: root.name })),
  }));
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    const { params } = request;
    if (params.mode === 'url') return { action: 'decline' as const };
    return handlers.elicit(params, extra.signal);
  });
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    handlers.sample(request.params as SamplingRequest, extra.signal),
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => handlers.onToolsChanged());
  return { client, dispose: () => taskStore.cleanup() };
}
