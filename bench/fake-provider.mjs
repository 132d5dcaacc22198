/**
 * A loopback stand-in for the OpenAI chat completions and Anthropic messages APIs that answers
 * every request at once with a short streamed text, for benchmarks of the real-provider path.
 * Run as a process of its own (`node bench/fake-provider.mjs`): it prints its port on stdout, so a
 * bench can time whole `bin/loom` processes with spawnSync while it serves. Measures nothing.
 * With FAKE_WORKFLOW_SCRIPT naming a file, an Anthropic request that offers a tool named like
 * "workflow" and has no tool result yet is answered with a call of that tool running the file's
 * script (for the Claude Code row of pipeline.bench.ts); every other request gets the text.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { anthropicEvent, anthropicStart, anthropicStream, openAiStream } from './fake-answers.mjs';

/** The workflow tool's call for an Anthropic request, or undefined (see the header). */
function workflowCall(text) {
  const file = process.env.FAKE_WORKFLOW_SCRIPT;
  if (!file) return undefined;
  const request = JSON.parse(text);
  const tool = request.tools?.find((candidate) => /workflow/i.test(candidate.name ?? ''));
  const answered = request.messages?.some(
    (message) =>
      Array.isArray(message.content) && message.content.some((part) => part.type === 'tool_result'),
  );
  if (!tool || answered) return undefined;
  const properties = tool.input_schema?.properties ?? {};
  const input = { script: readFileSync(file, 'utf8') };
  if ('meta' in properties) input.meta = { name: 'pipeline', description: 'bench pipeline' };
  const block = { type: 'tool_use', id: 'toolu_bench', name: tool.name, input: {} };
  return [
    anthropicStart,
    anthropicEvent('content_block_start', { index: 0, content_block: block }),
    anthropicEvent('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
    }),
    anthropicEvent('content_block_stop', { index: 0 }),
    anthropicEvent('message_delta', {
      delta: { stop_reason: 'tool_use' },
      usage: { output_tokens: 1 },
    }),
    anthropicEvent('message_stop', {}),
  ].join('');
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const anthropic = request.url?.split('?')[0].endsWith('/messages');
    const call = anthropic ? workflowCall(Buffer.concat(chunks).toString('utf8')) : undefined;
    const body = call ?? (anthropic ? anthropicStream : openAiStream);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
