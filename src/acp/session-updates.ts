/**
 * Translates Loom session events into ACP `session/update` payloads: streamed text and
 * reasoning, tool calls (pending, with the files they touch), their progress, and their results (with a diff or
 * terminal where the call had one), the todo list as a `plan`, compactions (for a client that
 * takes them, see compaction-updates.ts), and (for `session/load`) the stored history. A call made inside another (a `run_code` program's inner call) is a tool call
 * of its own, titled as inside its enclosing call and naming it in `_meta.loom`. Mapping only: it
 * reads events and the view's record of open calls, and never touches the log or the connection.
 */
import type { ContentBlock, PlanEntry, SessionUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { BlobStore } from '../core/blob-store.js';
import type { AnySessionEvent, SessionEvent } from '../core/session-events.js';
import { progressText } from '../core/tool-execution.js';
import { type ImageReference, imageDescription } from '../llm/contract.js';
import type { TodoItem } from '../todo/contract.js';
import { checkTodoList } from '../todo/todo-list.js';
import {
  type CompactionTrack,
  compactionUpdateOf,
  ReplayedCompactions,
} from './compaction-updates.js';
import {
  callLocationsOf,
  resultDetailsOf,
  resultLocationsOf,
  type ToolCallExtras,
} from './tool-call-details.js';

/** What the mapping needs beyond one event: the session's folder and its calls still open. */
export interface UpdateView {
  /** The session's workspace: relative paths in arguments resolve against it. */
  cwd: string;
  /** Calls announced and not yet answered; the mapping adds and removes them. */
  openCalls: Map<string, { name: string; arguments: unknown; parentCallId?: string }>;
  /** What the session learnt of a call while it ran (absent on replay). */
  extrasOf?(callId: string): ToolCallExtras | undefined;
  /** The session's compactions; present only when the client advertised `session.compaction`. */
  compactions?: CompactionTrack;
}

export interface UpdateOptions {
  /** The client advertised `session.compaction`: compactions stream as `compaction_update`. */
  compactions?: boolean;
  /** Where a replayed message's images are; without it they are replayed as their description. */
  blobs?: BlobStore;
}

export function updateView(cwd: string, options: UpdateOptions = {}): UpdateView {
  return { cwd, openCalls: new Map(), ...(options.compactions ? { compactions: {} } : {}) };
}

const TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  glob: 'search',
  grep: 'search',
  bash: 'execute',
};

export function toolKindOf(name: string): ToolKind {
  return TOOL_KINDS[name] ?? 'other';
}

/** The tool name and the argument a reader recognises first (a path, a command, a pattern). */
export function toolTitleOf(name: string, input: unknown): string {
  if (typeof input !== 'object' || input === null) return name;
  const fields = input as Record<string, unknown>;
  for (const key of ['path', 'command', 'pattern', 'description', 'prompt']) {
    const value = fields[key];
    if (typeof value === 'string' && value.length > 0) return `${name} ${oneLine(value)}`;
  }
  return name;
}

function oneLine(text: string, limit = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** Where an inner call's updates name their enclosing call (ACP has no field of its own for it). */
// A type, not an interface: ACP's `_meta` wants an object with an index signature.
export type LoomToolCallMeta = { loom: { parentToolCallId: string } };

export function innerCallMeta(parentCallId: string | undefined): { _meta?: LoomToolCallMeta } {
  return parentCallId === undefined ? {} : { _meta: { loom: { parentToolCallId: parentCallId } } };
}

function text(value: string) {
  return { type: 'text' as const, text: value };
}

/**
 * The todo list as an ACP plan. Loom's todos have no priority, and ACP requires one: every entry
 * is `medium`. The client replaces its whole plan with each update, as `todo_write` does.
 */
export function planUpdateOf(todos: readonly TodoItem[]): SessionUpdate {
  const entries: PlanEntry[] = todos.map((todo) => ({
    content: todo.content,
    status: todo.status,
    priority: 'medium',
  }));
  return { sessionUpdate: 'plan', entries };
}

function validTodos(value: unknown): TodoItem[] | undefined {
  try {
    return checkTodoList(value);
  } catch {
    return undefined;
  }
}

/** The update a live event streams as, or undefined for events the client has no view of. */
export function liveUpdateOf(event: SessionEvent, view: UpdateView): SessionUpdate | undefined {
  const typed = event as AnySessionEvent;
  switch (typed.type) {
    case 'assistant/chunk': {
      if (typed.data.text.length === 0) return undefined;
      const kind = typed.data.kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk';
      return { sessionUpdate: kind, content: text(typed.data.text) };
    }
    case 'tool/call': {
      const { callId, name, arguments: input, parentCallId } = typed.data;
      const parentName =
        parentCallId === undefined
          ? undefined
          : (view.openCalls.get(parentCallId)?.name ?? 'run_code');
      view.openCalls.set(
        callId,
        parentCallId === undefined
          ? { name, arguments: input }
          : { name, arguments: input, parentCallId },
      );
      const locations = callLocationsOf(name, input, view.cwd);
      const title = toolTitleOf(name, input);
      return {
        sessionUpdate: 'tool_call',
        toolCallId: callId,
        title: parentName === undefined ? title : `${title} (in ${parentName})`,
        kind: toolKindOf(name),
        status: 'pending',
        rawInput: input,
        ...(locations.length > 0 ? { locations } : {}),
        ...innerCallMeta(parentCallId),
      };
    }
    case 'tool/result': {
      const { callId, parentCallId } = typed.data;
      const call = view.openCalls.get(callId);
      view.openCalls.delete(callId);
      const extras = view.extrasOf?.(callId) ?? {};
      const details = call ? resultDetailsOf(call.name, call.arguments, view.cwd, extras) : [];
      const locations = call ? resultLocationsOf(call.name, call.arguments, view.cwd, extras) : [];
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId: callId,
        status: typed.data.isError ? 'failed' : 'completed',
        content: [...details, { type: 'content', content: text(typed.data.content) }],
        ...(locations.length > 0 ? { locations } : {}),
        ...innerCallMeta(call?.parentCallId ?? parentCallId),
      };
    }
    case 'tool/progress': {
      const { callId } = typed.data;
      const call = view.openCalls.get(callId);
      if (!call) return undefined;
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId: callId,
        status: 'in_progress',
        content: [{ type: 'content', content: text(progressText(typed.data)) }],
        ...innerCallMeta(call.parentCallId),
      };
    }
    case 'todo/write': {
      // A hand-edited log may hold a broken list: it has no view rather than failing a load.
      const todos = validTodos(typed.data.todos);
      return todos ? planUpdateOf(todos) : undefined;
    }
    case 'context/usage':
      // The stable usage update: the request's size against the window Loom now knows.
      return { sessionUpdate: 'usage_update', used: typed.data.tokens, size: typed.data.window };
    case 'context/summarizing':
    case 'context/compact':
    case 'context/compact-skipped':
      // Without the capability a client is not told (ACP forbids it); `/compact` answers as text.
      return view.compactions ? compactionUpdateOf(event, view.compactions) : undefined;
    default:
      return undefined;
  }
}

/** An image of a replayed message with its bytes; its description when the blob is gone. */
function imageContent(image: ImageReference, blobs: BlobStore | undefined): ContentBlock {
  try {
    if (blobs) {
      const data = blobs.read(image.blob).toString('base64');
      return { type: 'image', mimeType: image.mediaType, data };
    }
  } catch {
    // A blob gone missing is shown by its description.
  }
  return text(imageDescription(image).replace('this model does not take images', 'not stored'));
}

/**
 * The updates that show a stored session again: the human's messages (and their images), whole assistant
 * messages and reasoning (not their chunks), each tool call with its result, each todo list
 * as a plan (the client keeps the last), each compaction once in its final state (for a client
 * that takes them), and the latest context size as one `usage_update`.
 */
export function replayUpdatesOf(
  events: readonly SessionEvent[],
  cwd: string,
  options: UpdateOptions = {},
): SessionUpdate[] {
  const view = updateView(cwd);
  const updates: SessionUpdate[] = [];
  const compactions = options.compactions ? new ReplayedCompactions() : undefined;
  let latestUsage: SessionUpdate | undefined;
  for (const event of events as readonly AnySessionEvent[]) {
    switch (event.type) {
      case 'user/message':
        if (event.data.source === undefined) {
          updates.push({ sessionUpdate: 'user_message_chunk', content: text(event.data.text) });
          for (const image of event.data.images ?? []) {
            updates.push({
              sessionUpdate: 'user_message_chunk',
              content: imageContent(image, options.blobs),
            });
          }
        }
        break;
      case 'assistant/message':
        if (event.data.reasoning)
          updates.push({
            sessionUpdate: 'agent_thought_chunk',
            content: text(event.data.reasoning),
          });
        if (event.data.text.length > 0)
          updates.push({ sessionUpdate: 'agent_message_chunk', content: text(event.data.text) });
        break;
      case 'context/usage':
        // Only the latest size matters to a client: it is sent once, after the history.
        latestUsage = liveUpdateOf(event, view);
        break;
      case 'context/summarizing':
      case 'context/compact':
      case 'context/compact-skipped':
        compactions?.add(event, updates);
        break;
      case 'tool/call':
      case 'tool/result':
      case 'todo/write': {
        const update = liveUpdateOf(event, view);
        if (update) updates.push(update);
        break;
      }
      default:
        break;
    }
  }
  compactions?.finish(updates);
  if (latestUsage) updates.push(latestUsage);
  return updates;
}
