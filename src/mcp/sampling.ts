/**
 * A server's `sampling/createMessage` run on the calling agent's model, as
 * `mcp.servers.NAME.sampling` says: `allow` at once, `ask` once the human approves (the session's
 * permission asker, a TUI or an ACP client; else the user-questions service, so a terminal or
 * `--answers` can; nobody: refused), `deny` never. Its messages (text; images, audio and
 * resources described, never their bytes), system prompt and `maxTokens` go to the model with no
 * tools; the text that comes back is the answer. Its tokens are logged in the caller's session as
 * a `model/side-request` (core's `side-request.ts`; purpose `mcp-sampling`, with the turn), so
 * they count in the agent's usage, its turn's and any workflow budget, and the request as
 * `mcp/sampling`. A request that
 * comes with no call of the server in flight is refused: no agent asked for it.
 */
import { errorMessage, LoomError } from '../base/errors.js';
import { agentAsksUser } from '../core/agent-hooks.js';
import { agentRuntimeKey } from '../core/runtime.js';
import type { SessionEventMap } from '../core/session-events.js';
import { sideRequest } from '../core/side-request.js';
import { permissionAskerKey } from '../core/tool-execution.js';
import { userQuestionsKey } from '../interaction/user-questions.js';
import type { FinishReason, ModelMessage } from '../llm/contract.js';
import {
  DEFAULT_SAMPLING_POLICY,
  type McpCaller,
  type McpSamplingEvent,
  type McpSamplingPolicy,
} from './contract.js';

/** What a sampling request holds, as far as Loom reads it (the SDK's `CreateMessageRequestParams`). */
export interface SamplingRequest {
  messages: Array<{ role: 'user' | 'assistant'; content: unknown }>;
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
}

export interface SamplingResult {
  model: string;
  role: 'assistant';
  content: { type: 'text'; text: string };
  stopReason: string;
  [key: string]: unknown;
}

/** The answer to "may it?" when the policy is `ask`. */
export const APPROVE_SAMPLING = 'allow';

/** One content block as text: text as it is, anything else described. */
function blockText(block: unknown): string {
  const item = (block ?? {}) as Record<string, unknown>;
  switch (item.type) {
    case 'text':
      return String(item.text ?? '');
    case 'image':
    case 'audio': {
      const bytes = typeof item.data === 'string' ? Math.floor((item.data.length * 3) / 4) : 0;
      return `[${item.type}: ${String(item.mimeType ?? 'unknown type')}, ${bytes} bytes]`;
    }
    case 'tool_use':
      return `[tool call ${String(item.name)}: ${JSON.stringify(item.input ?? {})}]`;
    case 'tool_result':
      return `[tool result: ${JSON.stringify(item.content ?? [])}]`;
    default:
      return `[${String(item.type ?? 'content')}]`;
  }
}

/** The request's messages as the model's: one message each, its blocks joined. */
export function samplingMessages(request: SamplingRequest): ModelMessage[] {
  return request.messages.map((message) => {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const text = blocks.map(blockText).join('\n');
    return message.role === 'assistant'
      ? { role: 'assistant', text, toolCalls: [] }
      : { role: 'user', content: text };
  });
}

const STOP_REASONS: Partial<Record<FinishReason, string>> = {
  stop: 'endTurn',
  length: 'maxTokens',
  'tool-calls': 'toolUse',
};

function refusal(message: string): LoomError {
  return new LoomError('TOOL_DENIED', message);
}

/** `ask`: the permission asker, else the user-questions service; true once approved. */
async function approved(
  server: string,
  caller: McpCaller & { call: NonNullable<McpCaller['call']> },
  model: string,
  request: SamplingRequest,
  signal: AbortSignal,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const key = `mcp.servers.${server}.sampling`;
  const reason = `MCP server ${server} asks to use the model ${model} for up to ${request.maxTokens} tokens (${key}: ask)`;
  const asker = caller.context.find(permissionAskerKey);
  if (asker) {
    caller.context.emit(agentAsksUser, {
      agentId: caller.agentId,
      kind: 'approval',
      message: reason,
    });
    const answer = await asker.ask({ call: caller.call, reason, signal });
    if (answer === true) return { ok: true };
    const feedback = typeof answer === 'object' ? ` The user said: ${answer.feedback}` : '';
    return { ok: false, why: `the user did not approve it.${feedback}` };
  }
  const questions = caller.context.find(userQuestionsKey);
  if (!questions) return { ok: false, why: 'nobody can approve it here' };
  const log = caller.context.find(agentRuntimeKey)?.find(caller.agentId)?.log;
  const question = {
    question: `${reason}. Allow it?`,
    header: key,
    options: [
      { label: APPROVE_SAMPLING, description: 'run it on the model' },
      { label: 'deny', description: 'refuse it' },
    ],
  };
  const callId = caller.call.callId;
  const append = (event: SessionEventMap['question/answer']) => {
    if (log && !log.closed) log.append('question/answer', event);
  };
  if (log && !log.closed) log.append('question/ask', { callId, questions: [question] });
  caller.context.emit(agentAsksUser, {
    agentId: caller.agentId,
    kind: 'question',
    message: reason,
  });
  try {
    const reply = await questions.ask(
      { intent: 'questions', questions: [question] },
      { sessionId: caller.agentId, signal, toolCallId: callId },
    );
    if (reply.intent !== 'questions') throw new Error(`the answerer replied to a ${reply.intent}`);
    append({ callId, outcome: 'answered', answers: reply.answers });
    const answer = reply.answers[0];
    const given = (answer?.labels[0] ?? answer?.text ?? '').trim().toLowerCase();
    return given === APPROVE_SAMPLING || given === 'yes'
      ? { ok: true }
      : { ok: false, why: 'the user did not approve it' };
  } catch (error) {
    if (signal.aborted) {
      append({ callId, outcome: 'cancelled', reason: errorMessage(signal.reason) });
      throw error;
    }
    append({
      callId,
      outcome: 'refused',
      ...(error instanceof LoomError ? { code: error.code } : {}),
      message: errorMessage(error),
    });
    return { ok: false, why: `nobody approved it (${errorMessage(error)})` };
  }
}

/**
 * Answers `request` for `caller` under `policy`. Throws (the server gets a JSON-RPC error) when
 * it is refused or the model fails, with a message naming `mcp.servers.NAME.sampling`.
 */
export async function answerSampling(
  server: string,
  policy: McpSamplingPolicy | undefined,
  caller: McpCaller | undefined,
  request: SamplingRequest,
  signal: AbortSignal,
): Promise<SamplingResult> {
  const chosen = policy ?? DEFAULT_SAMPLING_POLICY;
  const key = `mcp.servers.${server}.sampling`;
  if (!caller?.call) {
    throw refusal(
      `MCP server ${server} asked to sample the model outside a tool call; Loom runs a sampling request only for the agent whose call it serves`,
    );
  }
  const call = caller.call;
  const handle = caller.context.find(agentRuntimeKey)?.find(caller.agentId);
  if (!handle)
    throw refusal(`MCP server ${server} asked to sample the model of an agent that is gone`);
  const { log } = handle;
  const model = handle.agent.model;
  const record = (event: Omit<McpSamplingEvent, 'server' | 'policy' | 'callId' | 'tool'>) => {
    if (log.closed) return;
    log.append('mcp/sampling', {
      server,
      callId: call.callId,
      ...(caller.tool !== undefined ? { tool: caller.tool } : {}),
      policy: chosen,
      ...event,
    });
  };
  const running = call.signal ? AbortSignal.any([signal, call.signal]) : signal;
  if (chosen === 'deny') {
    const message = `MCP server ${server} may not sample the model (${key}: deny); set ${key}: ask or allow to let it`;
    record({ outcome: 'refused', message });
    throw refusal(message);
  }
  if (chosen === 'ask') {
    const verdict = await approved(server, { ...caller, call }, model.id, request, running);
    if (!verdict.ok) {
      const message = `MCP server ${server}'s sampling request was refused: ${key} is ask and ${verdict.why}; set ${key}: allow to run its requests without asking`;
      record({ outcome: 'refused', message });
      throw refusal(message);
    }
  }
  const outcome = await sideRequest({
    model,
    request: {
      system: request.systemPrompt ?? '',
      messages: samplingMessages(request),
      tools: [],
      maxOutputTokens: request.maxTokens,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      signal: running,
    },
    log,
    purpose: 'mcp-sampling',
    turnId: call.turnId,
  });
  const { text, usage, failure } = outcome;
  const stopReason = outcome.finishReason
    ? (STOP_REASONS[outcome.finishReason] ?? outcome.finishReason)
    : 'endTurn';
  if (failure !== undefined || usage === undefined) {
    const message = `the model ${model.id} failed to answer MCP server ${server}'s sampling request: ${failure ?? 'it ended without finishing'}`;
    record({ outcome: 'failed', model: model.id, ...(usage ? { usage } : {}), message });
    throw new LoomError('PROVIDER_ERROR', message);
  }
  record({ outcome: 'answered', model: model.id, usage });
  return { model: model.id, role: 'assistant', content: { type: 'text', text }, stopReason };
}
