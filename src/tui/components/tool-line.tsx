/**
 * One tool call as one line: a status mark, the tool's name, a short gist of its arguments, and
 * once it ended a short gist of its result. Draws only; never changes the call.
 */
import { Box, Text } from 'ink';
import type { ToolLineState, ToolStatus } from '../contract.js';

const MARKS: Record<ToolStatus, { mark: string; color: string }> = {
  running: { mark: '…', color: 'yellow' },
  done: { mark: '✓', color: 'green' },
  failed: { mark: '✗', color: 'red' },
  denied: { mark: '⊘', color: 'red' },
  cancelled: { mark: '◌', color: 'gray' },
};

export function gist(value: unknown, limit = 80): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

export function ToolLine({ tool }: { tool: ToolLineState }) {
  const { mark, color } = MARKS[tool.status];
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={color}>{mark}</Text> <Text bold>{tool.name}</Text>{' '}
        <Text dimColor>{gist(tool.arguments, 60)}</Text>
        {tool.status !== 'running' && tool.status !== 'done' ? (
          <Text color={color}> {tool.status}</Text>
        ) : null}
      </Text>
      {tool.result !== undefined ? <Text dimColor>{`  ⎿ ${gist(tool.result, 100)}`}</Text> : null}
    </Box>
  );
}
