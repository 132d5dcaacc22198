/**
 * The instant answers of the loopback stand-ins for the OpenAI chat completions and Anthropic
 * messages APIs (`fake-provider.mjs`, `request-size.bench.ts`): a short streamed text each.
 */
const sse = (events) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');

const chunk = (delta, finish) => ({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'bench',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** A streamed OpenAI chat answer: the text `hello`, then the usage. */
export const openAiStream = `${sse([
  chunk({ role: 'assistant', content: 'hello' }, null),
  chunk({}, 'stop'),
  {
    ...chunk({}, null),
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
  },
])}data: [DONE]\n\n`;

export const anthropicEvent = (type, data) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The `message_start` event of every answer. */
export const anthropicStart = anthropicEvent('message_start', {
  message: {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'bench',
    content: [],
    stop_reason: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  },
});

/** A streamed Anthropic answer: the text `hello`. */
export const anthropicStream = [
  anthropicStart,
  anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hello' } }),
  anthropicEvent('content_block_stop', { index: 0 }),
  anthropicEvent('message_delta', {
    delta: { stop_reason: 'end_turn' },
    usage: { output_tokens: 1 },
  }),
  anthropicEvent('message_stop', {}),
].join('');
