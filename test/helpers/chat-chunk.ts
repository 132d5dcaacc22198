/**
 * One server-sent event of an OpenAI-compatible chat-completions stream, for the loopback fake
 * servers of the tests.
 */
export function chatChunk(
  id: string,
  delta: object,
  finish: string | null,
  usage?: object,
): string {
  return `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  })}\n\n`;
}
