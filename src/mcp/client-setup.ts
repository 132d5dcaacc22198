/**
 * The one place Loom's MCP Client is made: the capabilities it declares and the requests and
 * notifications of the server it answers. Today: `roots` (`roots/list` answers the workspace and
 * `mcp.roots`; `listChanged: true`) and `tasks` (as the SDK's client supports them: a task store
 * answering `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`);
 * `notifications/tools/list_changed` goes to `onToolsChanged`, `notifications/prompts/list_changed`
 * and `notifications/resources/list_changed` to `onCatalogChanged`; `elicitation` (form and URL
 * mode) goes to `elicit` and `sampling` (no tools) to `sample`, both answered for the agent whose
 * call is in flight (see server-connection.ts). A sampling or elicitation request the server sends
 * as a task (`params.task`, declared as `tasks.requests`) is answered at once with the task; the
 * same handler runs in the background and its result (or its failure, as the task's
 * `statusMessage`) is stored for the server's `tasks/get` and `tasks/result`. `tasks/cancel`
 * aborts it. Loads the SDK; never starts a transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTaskStore, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type {
  RequestHandlerExtra,
  RequestTaskStore,
} from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  type CreateTaskResult,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  type Result,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../base/errors.js';
import { loomVersion } from '../core/version.js';
import type { McpRoot } from './contract.js';
import type { ElicitationReply, FormElicitation, UrlElicitation } from './elicitation.js';
import type { SamplingRequest, SamplingResult } from './sampling.js';

export interface ClientHandlers {
  /** The roots a server is offered now (read at each `roots/list`). */
  roots(): readonly McpRoot[];
  /** The server said its tools changed. Must not throw. */
  onToolsChanged(): void;
  /** The server said its prompts or its resources changed. Must not throw. */
  onCatalogChanged(kind: 'prompts' | 'resources'): void;
  /** A form or URL elicitation. */
  elicit(request: FormElicitation | UrlElicitation, signal: AbortSignal): Promise<ElicitationReply>;
  /** A sampling request; throws to refuse it. */
  sample(request: SamplingRequest, signal: AbortSignal): Promise<SamplingResult>;
}

export interface LoomClient {
  client: Client;
  /** Ends what the client holds besides its transport (the task store's timers, running tasks). */
  dispose(): void;
}

export const CLIENT_CAPABILITIES: ClientCapabilities = {
  roots: { listChanged: true },
  tasks: {
    list: {},
    cancel: {},
    requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
  },
  elicitation: { form: {}, url: {} },
  sampling: {},
};

type Extra = RequestHandlerExtra<never, never>;

export function createClient(handlers: ClientHandlers): LoomClient {
  const store = new InMemoryTaskStore();
  /** The running task of each id: `tasks/cancel` (a `cancelled` status) aborts it. */
  const running = new Map<string, AbortController>();
  const taskStore: TaskStore = {
    createTask: (...args) => store.createTask(...args),
    getTask: (...args) => store.getTask(...args),
    storeTaskResult: (...args) => store.storeTaskResult(...args),
    getTaskResult: (...args) => store.getTaskResult(...args),
    listTasks: (...args) => store.listTasks(...args),
    updateTaskStatus: async (taskId, status, statusMessage, sessionId) => {
      await store.updateTaskStatus(taskId, status, statusMessage, sessionId);
      if (status === 'cancelled')
        running.get(taskId)?.abort(new Error('the server cancelled the task'));
    },
  };
  const client = new Client(
    { name: 'loom', version: loomVersion },
    { capabilities: CLIENT_CAPABILITIES, taskStore },
  );

  /** Runs `answer` for the request, or as a task when the request asks for one. */
  function answered<T extends Result>(
    extra: Extra,
    asTask: boolean,
    answer: (signal: AbortSignal) => Promise<T>,
  ): Promise<T | CreateTaskResult> {
    const tasks: RequestTaskStore | undefined = extra.taskStore;
    if (!asTask || !tasks) return answer(extra.signal);
    return (async () => {
      const task = await tasks.createTask({ ttl: extra.taskRequestedTtl ?? null });
      const stop = new AbortController();
      running.set(task.taskId, stop);
      void answer(stop.signal)
        .then(
          (result) => tasks.storeTaskResult(task.taskId, 'completed', result),
          (error: unknown) => tasks.updateTaskStatus(task.taskId, 'failed', errorMessage(error)),
        )
        // The task was cancelled (a terminal status takes no result) or forgotten: nothing to store.
        .catch(() => undefined)
        .finally(() => running.delete(task.taskId));
      return { task };
    })();
  }

  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: handlers.roots().map((root) => ({ uri: root.uri, name: root.name })),
  }));
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    const { params } = request;
    const asked: FormElicitation | UrlElicitation =
      params.mode === 'url'
        ? {
            mode: 'url',
            message: params.message,
            url: params.url,
            elicitationId: params.elicitationId,
          }
        : params;
    return answered(extra, params.task !== undefined, (signal) => handlers.elicit(asked, signal));
  });
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    answered(extra, request.params.task !== undefined, (signal) =>
      handlers.sample(request.params as SamplingRequest, signal),
    ),
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => handlers.onToolsChanged());
  client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
    handlers.onCatalogChanged('prompts'),
  );
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
    handlers.onCatalogChanged('resources'),
  );
  return {
    client,
    dispose: () => {
      for (const stop of running.values()) stop.abort(new Error('the connection closed'));
      store.cleanup();
    },
  };
}
