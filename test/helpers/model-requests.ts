/**
 * Building blocks for tests that talk to a model client directly: the messages of a
 * conversation, a request around them, and what came back (all parts, the text, the calls).
 */
import type {
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelStreamPart,
  ModelToolSpec,
} from '../../src/llm/contract.js';

export const user = (content: string): ModelMessage => ({ role: 'user', content });
export const assistant = (text = ''): ModelMessage => ({ role: 'assistant', text, toolCalls: [] });
export const toolResult = (content: string, toolName = 'write_file'): ModelMessage => ({
  role: 'tool',
  callId: 'call_1',
  toolName,
  content,
  isError: false,
});
export const structuredOutput: ModelToolSpec = {
  name: 'structured_output',
  description: 'Give the final answer',
  parameters: { type: 'object' },
};

export function request(messages: ModelMessage[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: '', messages, tools: [], signal: new AbortController().signal, ...extra };
}

/** Every part the client streams for `input`, in order. */
export async function collect(
  client: ModelClient,
  input: ModelRequest,
): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of client.stream(input)) parts.push(part);
  return parts;
}

export const textOf = (parts: ModelStreamPart[]) =>
  parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
export const toolCallsOf = (parts: ModelStreamPart[]) =>
  parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : []));
