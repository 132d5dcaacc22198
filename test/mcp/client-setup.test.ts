/**
 * A server's sampling and elicitation requests sent as tasks, in process against Loom's client:
 * the task is answered at once and the same handler's result is stored for `tasks/result`; a
 * refusal is the task's failure with its message; `tasks/cancel` aborts the running handler.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CancelTaskResultSchema,
  CreateMessageResultSchema,
  CreateTaskResultSchema,
  ElicitResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type ClientHandlers, createClient } from '../../src/mcp/client-setup.js';

const SAMPLED = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'warp' },
  model: 'scripted:test',
  stopReason: 'endTurn',
};

async function connected(handlers: Partial<ClientHandlers>) {
  const server = new Server({ name: 'tasks-server', version: '1.0.0' }, { capabilities: {} });
  const owner = createClient({
    roots: () => [],
    onToolsChanged: () => undefined,
    onCatalogChanged: () => undefined,
    elicit: () => Promise.resolve({ action: 'decline' }),
    sample: () => Promise.reject(new Error('no sampling here')),
    ...handlers,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await owner.client.connect(clientSide);
  return {
    server,
    close: async () => {
      owner.dispose();
      await owner.client.close();
      await server.close();
    },
  };
}

const samplingAsTask = {
  method: 'sampling/createMessage' as const,
  params: {
    task: { ttl: 60_000 },
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'a line' } }],
    maxTokens: 20,
  },
};

test('a sampling request sent as a task: the task at once, the result for tasks/result', async () => {
  let finish: (() => void) | undefined;
  const { server, close } = await connected({
    sample: () =>
      new Promise((resolve) => {
        finish = () => resolve(SAMPLED);
      }),
  });
  const { task } = await server.request(samplingAsTask, CreateTaskResultSchema);
  assert.equal(task.status, 'working');
  assert.ok(finish, 'the sampling runs once the task is created');
  const running = await server.request(
    { method: 'tasks/get', params: { taskId: task.taskId } },
    GetTaskResultSchema,
  );
  assert.equal(running.status, 'working');
  finish();
  const result = await server.request(
    { method: 'tasks/result', params: { taskId: task.taskId } },
    CreateMessageResultSchema,
  );
  assert.deepEqual({ ...result, _meta: undefined }, { ...SAMPLED, _meta: undefined });
  const done = await server.request(
    { method: 'tasks/get', params: { taskId: task.taskId } },
    GetTaskResultSchema,
  );
  assert.equal(done.status, 'completed');
  await close();
});

test('a refused sampling task fails with the refusal as its status message', async () => {
  const { server, close } = await connected({});
  const { task } = await server.request(samplingAsTask, CreateTaskResultSchema);
  await assert.rejects(
    server.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      CreateMessageResultSchema,
    ),
  );
  const failed = await server.request(
    { method: 'tasks/get', params: { taskId: task.taskId } },
    GetTaskResultSchema,
  );
  assert.deepEqual([failed.status, failed.statusMessage], ['failed', 'no sampling here']);
  await close();
});

test('tasks/cancel aborts an elicitation running as a task', async () => {
  let aborted: ((reason: unknown) => void) | undefined;
  const stopped = new Promise<unknown>((resolve) => {
    aborted = resolve;
  });
  const { server, close } = await connected({
    elicit: (request, signal) =>
      new Promise((resolve) => {
        if ('elicitationId' in request && request.elicitationId === 'plain') {
          resolve({ action: 'decline' });
          return;
        }
        signal.addEventListener('abort', () => {
          aborted?.(signal.reason);
          resolve({ action: 'cancel' });
        });
      }),
  });
  const { task } = await server.request(
    {
      method: 'elicitation/create',
      params: {
        task: { ttl: 60_000 },
        mode: 'url',
        message: 'Sign in',
        url: 'https://example.com/sign-in',
        elicitationId: 'e1',
      },
    },
    CreateTaskResultSchema,
  );
  const cancelled = await server.request(
    { method: 'tasks/cancel', params: { taskId: task.taskId } },
    CancelTaskResultSchema,
  );
  assert.equal(cancelled.status, 'cancelled');
  assert.match(String(await stopped), /the server cancelled the task/);
  // A plain (not task) request still answers directly.
  const plain = await server.request(
    {
      method: 'elicitation/create',
      params: {
        mode: 'url',
        message: 'Sign in',
        url: 'https://example.com/',
        elicitationId: 'plain',
      },
    },
    ElicitResultSchema,
  );
  assert.equal(plain.action, 'decline');
  await close();
});
