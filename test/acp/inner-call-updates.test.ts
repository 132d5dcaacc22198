/**
 * A `run_code` program's inner calls as an ACP client sees them: each its own tool call, titled
 * as inside run_code and naming its enclosing call in `_meta.loom`, pending then completed (or
 * failed when the program is cancelled) before the program's own update; the same on replay.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { liveUpdateOf, replayUpdatesOf, updateView } from '../../src/acp/session-updates.js';
import { abortedProgramEvents, PROGRAM, programEvents } from '../helpers/inner-call-events.js';

/** `id status title? parent?` per tool update, in order. */
function story(updates: readonly (acp.SessionUpdate | undefined)[]): string[] {
  return updates.flatMap((update) => {
    if (update?.sessionUpdate !== 'tool_call' && update?.sessionUpdate !== 'tool_call_update')
      return [];
    const meta = update._meta as { loom?: { parentToolCallId?: string } } | undefined | null;
    const parent = meta?.loom?.parentToolCallId;
    const title = update.sessionUpdate === 'tool_call' ? ` "${update.title}"` : '';
    return [`${update.toolCallId} ${update.status}${title}${parent ? ` in ${parent}` : ''}`];
  });
}

test('acp: inner calls are their own tool calls inside run_code, answered before it', () => {
  const view = updateView('/workspace');
  const updates = programEvents().map((event) => liveUpdateOf(event, view));
  assert.deepEqual(story(updates), [
    `${PROGRAM} pending "run_code"`,
    `${PROGRAM}.1 pending "read_file a.ts (in run_code)" in ${PROGRAM}`,
    `${PROGRAM}.2 pending "grep TODO (in run_code)" in ${PROGRAM}`,
    `${PROGRAM}.1 completed in ${PROGRAM}`,
    `${PROGRAM}.2 completed in ${PROGRAM}`,
    `${PROGRAM} completed`,
  ]);
  assert.equal(view.openCalls.size, 0, 'every call is closed');
  const read = updates.find(
    (update) => update?.sessionUpdate === 'tool_call' && update.toolCallId === `${PROGRAM}.1`,
  );
  assert.equal(read?.sessionUpdate === 'tool_call' && read.kind, 'read');
  assert.deepEqual(read?.sessionUpdate === 'tool_call' && read.locations, [
    { path: '/workspace/a.ts', line: 1 },
  ]);
});

test('acp: a cancelled program fails each inner call, then itself; replay tells the same', () => {
  const view = updateView('/workspace');
  const live = story(abortedProgramEvents().map((event) => liveUpdateOf(event, view)));
  assert.deepEqual(live, [
    `${PROGRAM} pending "run_code"`,
    `${PROGRAM}.1 pending "read_file a.ts (in run_code)" in ${PROGRAM}`,
    `${PROGRAM}.2 pending "grep TODO (in run_code)" in ${PROGRAM}`,
    `${PROGRAM}.1 failed in ${PROGRAM}`,
    `${PROGRAM}.2 failed in ${PROGRAM}`,
    `${PROGRAM} failed`,
  ]);
  assert.deepEqual(story(replayUpdatesOf(abortedProgramEvents(), '/workspace')), live);
});
