/**
 * One tool call: a line with its status mark (running, done, failed, denied, cancelled), the
 * tool's name and the gist of its arguments; once it ended, a short result under it (folded to
 * a few lines, errors in the status colour) and, for `edit_file` / `write_file`, the edit as a
 * coloured diff; a `todo_write` shows its list as a checklist instead of its arguments. Calls made inside it (a `run_code` program's) are indented under its line, one
 * line each with their own status (the latest few while it runs, the first few once it ended).
 * `expanded` (the transcript view) shows everything. Draws only.
 */
import { Box, Text } from 'ink';
import type { ToolLineState, ToolStatus } from '../contract.js';
import { diffOfCall, EditDiff } from './edit-diff.js';
import { FoldHint, foldLines, RESULT_PREVIEW_LINES, textLines } from './folded-lines.js';
import { TodoChecklist, todosOfCall } from './todo-checklist.js';

const MARKS: Record<ToolStatus, { mark: string; color: string }> = {
  running: { mark: '…', color: 'yellow' },
  done: { mark: '✓', color: 'green' },
  failed: { mark: '✗', color: 'red' },
  denied: { mark: '⊘', color: 'red' },
  cancelled: { mark: '◌', color: 'gray' },
};

/** What a call's line says of its status, after its name: nothing for a call that is done. */
export function statusLabel(tool: ToolLineState): string {
  if (tool.status === 'running' && tool.awaitingApproval) return 'waiting for approval';
  return tool.status === 'done' ? '' : tool.status;
}

/** Argument names that say what a call is about, most telling first. */
const TELLING_ARGUMENTS = [
  'command',
  'pattern',
  'path',
  'url',
  'query',
  'description',
  'prompt',
  'code',
];

/** How many inner calls the chat shows under their enclosing call before folding. */
export const INNER_CALL_PREVIEW_LINES = 5;

/** The inner calls the chat shows: the latest while the enclosing call runs, else the first. */
export function foldInnerCalls(tool: ToolLineState, expanded: boolean) {
  const children = tool.children ?? [];
  if (expanded || children.length <= INNER_CALL_PREVIEW_LINES)
    return { shown: children, hidden: 0 };
  const hidden = children.length - INNER_CALL_PREVIEW_LINES;
  return tool.status === 'running'
    ? { shown: children.slice(hidden), hidden }
    : { shown: children.slice(0, INNER_CALL_PREVIEW_LINES), hidden };
}

/** The rows a running call takes in the live region: its line, its checklist, its inner calls'. */
export function liveToolRows(tool: ToolLineState): number {
  const { shown, hidden } = foldInnerCalls(tool, false);
  const checklist = todosOfCall(tool.name, tool.arguments)?.length ?? 0;
  return 1 + checklist + shown.length + (hidden > 0 ? 1 : 0);
}

export function gist(value: unknown, limit = 80): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/**
 * What a call is about in a few words: its most telling argument (a search's pattern with the
 * folder it searches, a workflow's declared name), or all of them.
 */
export function describeArguments(args: unknown, limit = 80): string {
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const fields = args as Record<string, unknown>;
    const key = TELLING_ARGUMENTS.find((name) => typeof fields[name] === 'string');
    if (key === 'pattern' && typeof fields.path === 'string') {
      return gist(`${fields.pattern} in ${fields.path}`, limit);
    }
    if (key !== undefined) return gist(fields[key], limit);
    // A workflow is known by the name and description its script declares.
    const meta = fields.meta as Record<string, unknown> | undefined;
    if (typeof meta?.name === 'string') {
      const about = typeof meta.description === 'string' ? `: ${meta.description}` : '';
      return gist(`${meta.name}${about}`, limit);
    }
  }
  return args === undefined ? '' : gist(args, limit);
}

export interface ToolLineProps {
  tool: ToolLineState;
  /** Every line of the result and the diff (the transcript view). */
  expanded?: boolean;
}

function InnerCalls({ tool, expanded }: { tool: ToolLineState; expanded: boolean }) {
  const { shown, hidden } = foldInnerCalls(tool, expanded);
  if (shown.length === 0) return null;
  const more =
    hidden > 0
      ? `… ${hidden} ${tool.status === 'running' ? 'earlier' : 'more'} ${hidden === 1 ? 'call' : 'calls'}`
      : '';
  return (
    <Box flexDirection="column" marginLeft={2}>
      {more && tool.status === 'running' ? <Text dimColor>{more}</Text> : null}
      {shown.map((child) =>
        expanded ? (
          <ToolLine key={child.callId} tool={child} expanded />
        ) : (
          <InnerCallLine key={child.callId} tool={child} />
        ),
      )}
      {more && tool.status !== 'running' ? (
        <Text dimColor>{`${more}, ctrl+o to expand`}</Text>
      ) : null}
    </Box>
  );
}

/** An inner call in one line: its mark, name and gist, and why it did not succeed. */
function InnerCallLine({ tool }: { tool: ToolLineState }) {
  const { mark, color } = MARKS[tool.status];
  const problem =
    (tool.status === 'failed' || tool.status === 'denied') && tool.result
      ? `: ${gist(tool.result, 80)}`
      : '';
  return (
    <Text wrap="truncate-end">
      <Text color={color}>{mark}</Text> <Text bold>{tool.name}</Text>{' '}
      <Text dimColor>{describeArguments(tool.arguments, 80)}</Text>
      {tool.status === 'done' ? null : (
        <Text color={color}>{` · ${statusLabel(tool)}${problem}`}</Text>
      )}
    </Text>
  );
}

export function ToolLine({ tool, expanded = false }: ToolLineProps) {
  const { mark, color } = MARKS[tool.status];
  const ended = tool.status !== 'running';
  const diff = tool.status === 'done' ? diffOfCall(tool.name, tool.arguments) : undefined;
  // A todo list is shown as its checklist, not as JSON; a refused or failed write says why.
  const todos = todosOfCall(tool.name, tool.arguments);
  const checklist = todos && (tool.status === 'done' || tool.status === 'running');
  const result = ended && !checklist ? textLines(tool.result ?? '') : [];
  const { shown, hidden } = foldLines(result, RESULT_PREVIEW_LINES, expanded);
  const wrap = expanded ? 'wrap' : 'truncate-end';
  return (
    <Box flexDirection="column">
      <Text wrap={wrap}>
        <Text color={color}>{mark}</Text> <Text bold>{tool.name}</Text>{' '}
        <Text dimColor>
          {todos ? '' : describeArguments(tool.arguments, expanded ? 2000 : 100)}
        </Text>
        {tool.status === 'done' ? null : <Text color={color}>{` · ${statusLabel(tool)}`}</Text>}
      </Text>
      {checklist ? <TodoChecklist todos={todos} indent={2} /> : null}
      <InnerCalls tool={tool} expanded={expanded} />
      {ended
        ? shown.map((line, index) => (
            <Text
              // biome-ignore lint/suspicious/noArrayIndexKey: result lines have no identity but their place
              key={index}
              wrap={wrap}
              dimColor={tool.status === 'done' || tool.status === 'cancelled'}
              color={tool.status === 'failed' || tool.status === 'denied' ? color : undefined}
            >
              {`${index === 0 ? '  ⎿ ' : '    '}${line || (index === 0 && result.length === 1 ? '(no output)' : '')}`}
            </Text>
          ))
        : null}
      <FoldHint hidden={hidden} indent="    " />
      {diff && diff.length > 0 ? <EditDiff lines={diff} expanded={expanded} /> : null}
    </Box>
  );
}
