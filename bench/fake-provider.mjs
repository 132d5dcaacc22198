/**
 * A loopback stand-in for the OpenAI chat completions and Anthropic messages APIs that answers
 * every request at once with a short streamed text, for benchmarks of the real-provider path.
 * Run as a process of its own (`node bench/fake-provider.mjs`): it prints its port on stdout, so a
 * bench can time whole `bin/loom` processes with spawnSync while it serves. Measures nothing.
 */
import { createServer } from 'node:http';

const sse = (events) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');

const chunk = (delta, finish) => ({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'bench',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const openAiStream = `${sse([
  chunk({ role: 'assistant', content: 'hello' }, null),
  chunk({}, 'stop'),
  {
    ...chunk({}, null),
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
  },
])}data: [DONE]\n\n`;

const anthropicEvent = (type, data) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const anthropicStream = [
  anthropicEvent('message_start', {
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'bench',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  }),
  anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hello' } }),
  anthropicEvent('content_block_stop', { index: 0 }),
  anthropicEvent('message_delta', {
    delta: { stop_reason: 'end_turn' },
    usage: { output_tokens: 1 },
  }),
  anthropicEvent('message_stop', {}),
].join('');

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const body = request.url?.endsWith('/messages') ? anthropicStream : openAiStream;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
