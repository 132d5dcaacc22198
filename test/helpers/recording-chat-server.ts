/**
 * A loopback OpenAI-compatible chat server that records every request body as it arrived and
 * answers from a script: each answer is a list of tool calls or a final text, the last one
 * repeating. It reports usage (prompt tokens about 4 characters a token) so context accounting
 * works. It listens on 127.0.0.1 only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatChunk } from './chat-chunk.js';

export type ChatAnswer =
  | { calls: Array<{ name: string; arguments: Record<string, unknown> }> }
  | { text: string };

export interface RecordingChatServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL an OpenAI-compatible route takes. */
  baseURL: string;
  /** Each request's body text, in arrival order. */
  bodies: string[];
  close(): Promise<void>;
}

function stream(answer: ChatAnswer, promptTokens: number, index: number): string {
  const chunk = (delta: object, finish: string | null, usage?: object) =>
    chatChunk(`chat-${index}`, delta, finish, usage);
  let body = chunk({ role: 'assistant', content: '' }, null);
  if ('text' in answer) {
    body += chunk({ content: answer.text }, null);
  } else {
    answer.calls.forEach((call, position) => {
      body += chunk(
        {
          tool_calls: [
            {
              index: position,
              id: `call_${index}_${position}`,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.arguments) },
            },
          ],
        },
        null,
      );
    });
  }
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: 5,
    total_tokens: promptTokens + 5,
  };
  body += chunk({}, 'text' in answer ? 'stop' : 'tool_calls', usage);
  return `${body}data: [DONE]\n\n`;
}

export async function startRecordingChatServer(
  answers: ChatAnswer[],
): Promise<RecordingChatServer> {
  const bodies: string[] = [];
  const server: Server = createServer(async (request, response) => {
    let text = '';
    for await (const piece of request) text += String(piece);
    bodies.push(text);
    const answer = answers[Math.min(bodies.length - 1, answers.length - 1)] as ChatAnswer;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(stream(answer, Math.ceil(text.length / 4), bodies.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
