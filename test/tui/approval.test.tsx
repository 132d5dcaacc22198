/**
 * The approval widget: yes once, yes always (naming the rule it adds), no with a reason for the
 * model, chosen by letter, digit or arrows and Enter; it answers exactly once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { Approval, type ApprovalRequest } from '../../src/tui/components/approval.js';
import type { ApprovalAnswer } from '../../src/tui/contract.js';
import { answerRecorder, frameMatching, KEY, widgetReady } from './widget-harness.js';

function approvalOf(tool: string, args: unknown) {
  const recorder = answerRecorder<ApprovalAnswer>();
  const request: ApprovalRequest = {
    kind: 'approval',
    id: 'ask-1',
    callId: 'call_1',
    tool,
    arguments: args,
    reason: `rule ${tool} asks for approval`,
    resolve: recorder.resolve,
  };
  return { request, recorder };
}

test('the approval shows the command and the rule "always" adds; y approves once', async () => {
  const { request, recorder } = approvalOf('bash', { command: 'ls   -la' });
  const view = render(<Approval request={request} />);
  const frame = await widgetReady(view, 'Allow bash?');
  assert.match(frame, /\$ ls {3}-la/);
  assert.match(frame, /rule bash asks for approval/);
  assert.match(frame, /Yes, and allow bash `ls -la` for the rest of this session/);
  assert.match(frame, /No, and tell the model why/);
  view.stdin.write('y');
  view.stdin.write('a');
  assert.deepEqual(await recorder.next, { decision: 'once' });
  assert.deepEqual(recorder.answers, [{ decision: 'once' }], 'answered exactly once');
  view.unmount();
});

test('arrow down and Enter choose "yes, always"; the digit 2 does too', async () => {
  const first = approvalOf('write_file', { path: 'a.txt', content: 'hi' });
  const view = render(<Approval request={first.request} />);
  await widgetReady(view, /› 1\. Yes/);
  assert.match(view.lastFrame() ?? '', /allow every write_file call/);
  view.stdin.write(KEY.down);
  await frameMatching(view.lastFrame, /› 2\. Yes, and allow/);
  view.stdin.write(KEY.enter);
  assert.deepEqual(await first.recorder.next, { decision: 'always' });
  view.unmount();

  const second = approvalOf('write_file', { path: 'b.txt', content: 'hi' });
  const other = render(<Approval request={second.request} />);
  await widgetReady(other, /› 1\. Yes/);
  other.stdin.write('2');
  assert.deepEqual(await second.recorder.next, { decision: 'always' });
  other.unmount();
});

test('n asks why; the typed reason is the answer the model reads', async () => {
  const { request, recorder } = approvalOf('bash', { command: 'rm -rf build' });
  const view = render(<Approval request={request} />);
  await widgetReady(view, 'Allow bash?');
  view.stdin.write('n');
  await frameMatching(view.lastFrame, 'Why not?');
  view.stdin.write('use make clean');
  await frameMatching(view.lastFrame, 'Why not? use make clean');
  view.stdin.write(KEY.backspace);
  view.stdin.write('n');
  await frameMatching(view.lastFrame, 'Why not? use make clean');
  view.stdin.write(' instead');
  await frameMatching(view.lastFrame, 'instead');
  assert.equal(recorder.answers.length, 0, 'typing y, a or n in the reason does not answer');
  view.stdin.write(KEY.enter);
  assert.deepEqual(await recorder.next, { decision: 'no', reason: 'use make clean instead' });
  view.unmount();
});

test('no with an empty reason refuses without one', async () => {
  const { request, recorder } = approvalOf('bash', { command: 'make' });
  const view = render(<Approval request={request} />);
  await widgetReady(view, /› 1\. Yes/);
  view.stdin.write('3');
  await frameMatching(view.lastFrame, 'Why not?');
  view.stdin.write(KEY.enter);
  assert.deepEqual(await recorder.next, { decision: 'no' });
  view.unmount();
});

test('a long or multi-line command is shown in full, and "always" names it instead of repeating it', async () => {
  const command = `printf '%s\\n' ${'word '.repeat(20)}\necho done`;
  const { request, recorder } = approvalOf('bash', { command });
  const view = render(<Approval request={request} />);
  const frame = await widgetReady(view, 'Allow bash?');
  assert.match(frame, /\$ printf '%s\\n' word word/);
  assert.match(frame, /echo done/);
  assert.match(frame, /Yes, and allow this exact bash command for the rest of this session/);
  view.stdin.write('a');
  assert.deepEqual(await recorder.next, { decision: 'always' });
  view.unmount();
});
