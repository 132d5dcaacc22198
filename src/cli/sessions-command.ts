/**
 * `loom sessions list` and `loom sessions show ID`: what is stored under $LOOM_HOME/sessions.
 * Reads session files without repairing or changing them.
 */
import { loomHome } from '../core/home.js';
import type { SessionEvent } from '../core/session-events.js';
import { loadSessionFile } from '../core/session-load.js';
import { SessionStore } from '../core/session-store.js';

function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** A readable line for one event; events of plugins fall back to their JSON data. */
export function describeEvent(event: SessionEvent): string {
  const data = event.data as unknown as Record<string, unknown>;
  const head = `${String(event.seq).padStart(5)}  ${event.type.padEnd(18)}`;
  switch (event.type) {
    case 'user/message':
      return `${head} [${data.delivery}] ${oneLine(String(data.text), 200)}`;
    case 'assistant/message': {
      const calls = (data.toolCalls as Array<{ name: string }>).map((call) => call.name);
      const text = oneLine(String(data.text), 200);
      return `${head} ${text}${calls.length > 0 ? `${text ? ' ' : ''}→ ${calls.join(', ')}` : ''}`;
    }
    case 'tool/call':
      return `${head} ${data.name} ${oneLine(JSON.stringify(data.arguments), 160)}`;
    case 'tool/result':
      return `${head} ${data.name}${data.isError ? ' (error)' : ''}: ${oneLine(String(data.content), 160)}`;
    case 'turn/end': {
      const error = data.error as { message: string } | undefined;
      return `${head} ${data.reason}${error ? `: ${error.message}` : ''}`;
    }
    case 'request/header':
      return `${head} ${data.model}, ${(data.tools as unknown[]).length} tools`;
    case 'assistant/chunk':
    case 'step/start':
    case 'step/end':
    case 'turn/start':
      return `${head} ${data.turnId ?? ''}${data.step !== undefined ? ` step ${data.step}` : ''}`;
    default:
      return `${head} ${oneLine(JSON.stringify(data), 200)}`;
  }
}

export function listSessions(options: { json?: boolean }): void {
  const summaries = new SessionStore(loomHome()).list();
  for (const summary of summaries) {
    if (options.json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
      continue;
    }
    const prompt = summary.error
      ? `(unreadable: ${summary.error})`
      : oneLine(summary.firstPrompt ?? '', 60);
    process.stdout.write(
      `${summary.id}  ${summary.created}  ${String(summary.turns).padStart(3)} turns  ${prompt}\n`,
    );
  }
  if (summaries.length === 0 && !options.json) process.stderr.write('no sessions yet\n');
}

export function showSession(id: string, options: { json?: boolean; chunks?: boolean }): void {
  const store = new SessionStore(loomHome());
  const { header, events } = loadSessionFile(store.pathOf(id));
  if (options.json) {
    for (const event of events)
      process.stdout.write(`${JSON.stringify({ sessionId: header.sessionId, ...event })}\n`);
    return;
  }
  const parent = header.parentSession ? `, parent ${header.parentSession}` : '';
  process.stdout.write(`session ${header.sessionId}, created ${header.created}${parent}\n`);
  for (const event of events) {
    if (event.type === 'assistant/chunk' && !options.chunks) continue;
    process.stdout.write(`${describeEvent(event)}\n`);
  }
}
