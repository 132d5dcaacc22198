import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { repairLeftoverGroups } from '../../src/tools/leftover-processes.js';
import { isAlive } from '../helpers/process-state.js';

function start(groupId: number, commandId: string): SessionEvent {
  return {
    type: 'bash/group-start',
    seq: 1,
    time: 0,
    data: { callId: 'call_1', groupId, commandId },
  };
}

test('repair never touches a group id now used by a process that is not the command', async () => {
  const stranger = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  await once(stranger, 'spawn');
  const pid = stranger.pid as number;
  try {
    const repairs = repairLeftoverGroups([start(pid, 'not-this-process')], 'reopened');
    assert.deepEqual(repairs, [
      {
        type: 'bash/group-end',
        data: { callId: 'call_1', groupId: pid, commandId: 'not-this-process', outcome: 'gone' },
      },
    ]);
    assert.equal(isAlive(pid), true);
  } finally {
    stranger.kill('SIGKILL');
  }
});

test('repair kills every process of the command and of its group, then has nothing left to do', async () => {
  const commandId = 'command-under-test';
  // No process is forked after "ready", so the table repair reads is complete.
  const leader = spawn('sh', ['-c', 'sleep 300 & echo ready; exec sleep 300'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, LOOM_COMMAND_ID: commandId },
  });
  await once(leader.stdout, 'data');
  const groupId = leader.pid as number;
  const exited = once(leader, 'exit');
  const repairs = repairLeftoverGroups([start(groupId, commandId)], 'reopened');
  assert.equal(repairs.length, 1);
  const data = repairs[0]?.data as { outcome: string; killed: number };
  assert.equal(data.outcome, 'killed');
  assert.equal(data.killed, 2);
  await exited;
  const closed = [
    start(groupId, commandId),
    {
      ...start(groupId, commandId),
      type: 'bash/group-end',
      seq: 2,
      data: { ...data, callId: 'call_1', groupId, commandId },
    } as SessionEvent,
  ];
  assert.deepEqual(repairLeftoverGroups(closed, 'reopened'), []);
});

/** A command of `commandId` in its own group (two processes), once it runs. */
async function runningCommand(commandId: string) {
  const leader = spawn('sh', ['-c', 'sleep 300 & echo ready; exec sleep 300'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, LOOM_COMMAND_ID: commandId },
  });
  await once(leader.stdout, 'data');
  return { groupId: leader.pid as number, exited: once(leader, 'exit') };
}

/** What `action` writes to stderr. */
function stderrOf(action: () => void): string {
  const write = process.stderr.write;
  let written = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    action();
  } finally {
    process.stderr.write = write;
  }
  return written;
}

test('a reopened session reports what repair killed; a process stopping its own session kills quietly', async () => {
  const reopened = await runningCommand('command-reopened');
  const report = stderrOf(() =>
    repairLeftoverGroups([start(reopened.groupId, 'command-reopened')], 'reopened'),
  );
  await reopened.exited;
  assert.match(report, /killed 2 processes left running by bash call call_1/);
  const stopping = await runningCommand('command-stopping');
  let repairs: ReturnType<typeof repairLeftoverGroups> = [];
  const quiet = stderrOf(() => {
    repairs = repairLeftoverGroups([start(stopping.groupId, 'command-stopping')], 'stopping');
  });
  await stopping.exited;
  assert.equal(quiet, '');
  assert.equal((repairs[0]?.data as { outcome: string } | undefined)?.outcome, 'killed');
});
