/**
 * A call's progress (`tool/progress`, logged from `toolProgressReported`) as each front end
 * shows it: the status line's running tool, a dim line under the call in plain `loom run`, and
 * an ACP `tool_call_update` while the call is open (none once it ended).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { liveUpdateOf, updateView } from '../../src/acp/session-updates.js';
import { plainRenderer } from '../../src/cli/render-plain.js';
import type { SessionEvent, SessionEventType } from '../../src/core/session-events.js';
import { progressText } from '../../src/core/tool-execution.js';
import { ActivityFold, describeActivity } from '../../src/tui/activity-state.js';

let seq = 0;
function event<Type extends SessionEventType>(
  type: Type,
  data: Partial<SessionEvent<Type>['data']>,
): SessionEvent {
  seq += 1;
  return { type, seq, time: 1000, data: { turnId: 't1', step: 1, ...data } as never };
}

const NAME = 'mcp__every__trigger-long-running-operation';
const call = event('tool/call', { callId: 'c1', name: NAME, arguments: {} });
const progress = event('tool/progress', {
  callId: 'c1',
  name: NAME,
  progress: 1,
  total: 2,
  message: 'halfway',
});
const result = event('tool/result', { callId: 'c1', name: NAME, content: 'done', isError: false });

test('progress in words: a count, a share of a total, a message, or "working"', () => {
  assert.equal(progressText({ progress: 1, total: 2, message: 'halfway' }), '1/2 halfway');
  assert.equal(progressText({ progress: 40 }), '40');
  assert.equal(progressText({ message: 'Analyzing content...' }), 'Analyzing content...');
  assert.equal(progressText({}), 'working');
});

test('the status line names the running call with its progress', () => {
  const fold = new ActivityFold();
  fold.apply(event('turn/start', {}));
  fold.apply(call);
  fold.apply(progress);
  assert.equal(
    describeActivity(fold.current as never, 1000).doing,
    `running ${NAME} (1/2 halfway)`,
  );
  fold.apply(result);
  assert.deepEqual(fold.current?.runningTools, []);
});

test('plain loom run prints the progress under its call', () => {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const renderer = plainRenderer(new PassThrough(), stderr);
  for (const each of [call, progress, result]) renderer.render(each);
  renderer.finish();
  assert.deepEqual(text.split('\n').slice(1, 2), ['  … 1/2 halfway']);
});

test('acp: progress is an in_progress tool_call_update of the open call, nothing after it ended', () => {
  const view = updateView('/workspace');
  liveUpdateOf(call, view);
  assert.deepEqual(liveUpdateOf(progress, view), {
    sessionUpdate: 'tool_call_update',
    toolCallId: 'c1',
    status: 'in_progress',
    content: [{ type: 'content', content: { type: 'text', text: '1/2 halfway' } }],
  });
  liveUpdateOf(result, view);
  assert.equal(liveUpdateOf(progress, view), undefined);
});
