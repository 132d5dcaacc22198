/**
 * Folds a root session's events into the transcript the terminal shows: finished items (which
 * never change again, so ink prints them once) and live items (streaming text, running tools).
 * A call made inside another (`parentCallId`, a `run_code` program's) is a child of the live
 * item of its enclosing call, which finishes with its own result. Reads events only; it never
 * writes the log and never throws on an event it does not know.
 */
import {
  contextCompactLine,
  contextSkippedLine,
  contextWarningLine,
} from '../context/context-lines.js';
import type { SessionEvent } from '../core/session-events.js';
import { hookRunLine } from '../project/hook-line.js';
import type { ToolLineState, ToolStatus, TranscriptItem } from './contract.js';

type Data<Type extends SessionEvent['type']> = SessionEvent<Type>['data'];

export class TranscriptFold {
  /** Append-only. */
  readonly finished: TranscriptItem[] = [];
  private readonly liveItems = new Map<string, TranscriptItem>();
  /** For each open inner call, the call id of the live item it is drawn in. */
  private readonly itemOfInnerCall = new Map<string, string>();
  private sequence = 0;

  get live(): TranscriptItem[] {
    return [...this.liveItems.values()];
  }

  /** An item made by the terminal itself (a shell command's output, a notice). */
  add(item: DistributiveOmit<TranscriptItem, 'id'>): void {
    this.finished.push({ ...item, id: `local-${++this.sequence}` } as TranscriptItem);
  }

  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'user/message': {
        const data = event.data as Data<'user/message'>;
        if (data.source === undefined) {
          this.finished.push({ kind: 'user', id: `u-${event.seq}`, text: data.text });
        } else {
          this.finished.push({
            kind: 'notice',
            id: `u-${event.seq}`,
            tone: 'info',
            text: `${data.source}${data.round !== undefined ? ` round ${data.round}` : ''}: ${firstLine(data.text)}`,
          });
        }
        return;
      }
      case 'assistant/chunk': {
        const data = event.data as Data<'assistant/chunk'>;
        const id = `${data.kind === 'text' ? 'a' : 'r'}-${data.turnId}-${data.step}`;
        const current = this.liveItems.get(id);
        const text = (current && 'text' in current ? current.text : '') + data.text;
        this.liveItems.set(id, {
          kind: data.kind === 'text' ? 'assistant' : 'reasoning',
          id,
          text,
        });
        return;
      }
      case 'assistant/message': {
        const data = event.data as Data<'assistant/message'>;
        const key = `${data.turnId}-${data.step}`;
        this.liveItems.delete(`a-${key}`);
        this.liveItems.delete(`r-${key}`);
        if (data.reasoning)
          this.finished.push({ kind: 'reasoning', id: `r-${key}`, text: data.reasoning });
        if (data.text.trim())
          this.finished.push({ kind: 'assistant', id: `a-${key}`, text: data.text });
        return;
      }
      case 'tool/call': {
        const data = event.data as Data<'tool/call'>;
        const tool: ToolLineState = {
          callId: data.callId,
          name: data.name,
          arguments: data.arguments,
          status: 'running',
        };
        if (data.parentCallId !== undefined && this.addInnerCall(data.parentCallId, tool)) return;
        this.liveItems.set(`t-${data.callId}`, { kind: 'tool', id: `t-${data.callId}`, tool });
        return;
      }
      case 'tool/result': {
        const data = event.data as Data<'tool/result'>;
        if (this.endInnerCall(data)) return;
        const id = `t-${data.callId}`;
        const running = this.liveItems.get(id);
        this.liveItems.delete(id);
        const children = running?.kind === 'tool' ? running.tool.children : undefined;
        this.finished.push({
          kind: 'tool',
          id,
          tool: {
            callId: data.callId,
            name: data.name,
            arguments: running?.kind === 'tool' ? running.tool.arguments : undefined,
            status: statusOf(data),
            result: data.content,
            ...(children ? { children } : {}),
          },
        });
        return;
      }
      case 'turn/end': {
        const data = event.data as Data<'turn/end'>;
        // What streamed before an abort stays visible.
        for (const item of this.liveItems.values()) this.finished.push(item);
        this.liveItems.clear();
        this.itemOfInnerCall.clear();
        if (data.error) {
          this.finished.push({
            kind: 'notice',
            id: `e-${event.seq}`,
            tone: 'error',
            text: data.error.message,
          });
        } else if (data.reason === 'aborted' || data.reason === 'interrupted') {
          this.finished.push({
            kind: 'notice',
            id: `e-${event.seq}`,
            tone: 'warning',
            text: 'interrupted',
          });
        }
        return;
      }
      case 'context/warning':
        this.finished.push({
          kind: 'context',
          id: `c-${event.seq}`,
          text: contextWarningLine(event.data as Data<'context/warning'>),
        });
        return;
      case 'context/compact': {
        const data = event.data as Data<'context/compact'>;
        this.finished.push({
          kind: 'context',
          id: `c-${event.seq}`,
          text: contextCompactLine(data),
          ...(data.summary !== '' ? { detail: data.summary } : {}),
        });
        return;
      }
      case 'command/run': {
        // A custom command's turn: what was typed and where its text came from (the body follows).
        const data = event.data as Data<'command/run'>;
        const parts = [
          `/${data.name}${data.arguments ? ` ${data.arguments}` : ''}`,
          data.file,
          ...(data.model ? [`model ${data.model}`] : []),
          ...(data.allowedTools ? [`tools ${data.allowedTools.join(', ')}`] : []),
        ];
        this.finished.push({
          kind: 'notice',
          id: `k-${event.seq}`,
          tone: 'info',
          text: parts.join(' · '),
        });
        return;
      }
      case 'mcp/prompt-run': {
        // A server prompt's turn: which prompt, with what (its text follows as the message).
        const data = event.data as Data<'mcp/prompt-run'>;
        const args = Object.entries(data.arguments).map(([name, value]) => `${name}=${value}`);
        this.finished.push({
          kind: 'notice',
          id: `p-${event.seq}`,
          tone: 'info',
          text: [`prompt ${data.prompt} of MCP server ${data.server}`, ...args].join(' · '),
        });
        return;
      }
      case 'context/compact-skipped':
        this.finished.push({
          kind: 'context',
          id: `c-${event.seq}`,
          text: contextSkippedLine(event.data as Data<'context/compact-skipped'>),
        });
        return;
      case 'hook/run':
        this.finished.push({
          kind: 'context',
          id: `h-${event.seq}`,
          text: hookRunLine(event.data as Data<'hook/run'>),
        });
        return;
      default:
        return;
    }
  }

  /** Draws an inner call in its enclosing call's live item; false when that item is not live. */
  private addInnerCall(parentCallId: string, tool: ToolLineState): boolean {
    const itemCallId = this.itemOfInnerCall.get(parentCallId) ?? parentCallId;
    const changed = this.changeLiveTool(itemCallId, parentCallId, (parent) => ({
      ...parent,
      children: [...(parent.children ?? []), tool],
    }));
    if (changed) this.itemOfInnerCall.set(tool.callId, itemCallId);
    return changed;
  }

  private endInnerCall(data: Data<'tool/result'>): boolean {
    const itemCallId = this.itemOfInnerCall.get(data.callId);
    if (itemCallId === undefined) return false;
    this.itemOfInnerCall.delete(data.callId);
    return this.changeLiveTool(itemCallId, data.callId, (inner) => ({
      ...inner,
      status: statusOf(data),
      result: data.content,
    }));
  }

  /** Replaces call `callId` within the live item of `itemCallId` (new objects, for the view). */
  private changeLiveTool(
    itemCallId: string,
    callId: string,
    change: (tool: ToolLineState) => ToolLineState,
  ): boolean {
    const item = this.liveItems.get(`t-${itemCallId}`);
    if (item?.kind !== 'tool') return false;
    const tool = changeTool(item.tool, callId, change);
    if (tool === item.tool) return false;
    this.liveItems.set(item.id, { ...item, tool });
    return true;
  }
}

function changeTool(
  tool: ToolLineState,
  callId: string,
  change: (tool: ToolLineState) => ToolLineState,
): ToolLineState {
  if (tool.callId === callId) return change(tool);
  if (!tool.children) return tool;
  let changed = false;
  const children = tool.children.map((child) => {
    const next = changeTool(child, callId, change);
    if (next !== child) changed = true;
    return next;
  });
  return changed ? { ...tool, children } : tool;
}

type DistributiveOmit<Type, Key extends PropertyKey> = Type extends unknown
  ? Omit<Type, Key>
  : never;

function statusOf(data: Data<'tool/result'>): ToolStatus {
  if (!data.isError) return 'done';
  if (data.errorCode === 'TOOL_DENIED') return 'denied';
  if (data.errorCode === 'ABORTED') return 'cancelled';
  return 'failed';
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
