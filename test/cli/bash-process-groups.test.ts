import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isAlive, isGroupAlive, waitUntil } from '../helpers/process-state.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import {
  type LoomRun,
  runScripted,
  type ScriptedFolders,
  scriptedFolders,
  startScriptedRun,
} from './loom-process.js';

interface JsonLine {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

function jsonLines(text: string): JsonLine[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as JsonLine);
}

function groupStarts(run: LoomRun): JsonLine[] {
  return jsonLines(run.stdout()).filter((line) => line.type === 'bash/group-start');
}

function sessionEvents(home: string, sessionId: string): JsonLine[] {
  return jsonLines(readFileSync(join(home, 'sessions', `${sessionId}.jsonl`), 'utf8'));
}

/**
 * These tests watch the process groups Loom itself makes (`$$` is the group's id on the host),
 * so they run without the sandbox, whose own pid namespace renumbers them; the sandboxed
 * counterparts are in sandbox-confinement.test.ts.
 */
function unsandboxed(folders: ScriptedFolders): ScriptedFolders {
  writeFileSync(join(folders.home, 'config.yaml'), 'sandbox:\n  mode: off\n');
  return folders;
}

/** Marks a command as running: its shell's pid (its process group's id) in `name`, written whole. */
function marker(name: string): string {
  return `echo $$ > ${name}.tmp && mv ${name}.tmp ${name}`;
}

/**
 * Starts `loom run --json` and waits until every marker file exists; the process groups are
 * read from the markers, so this needs nothing of the session log.
 */
async function startAndWait(
  folders: ScriptedFolders,
  markers: string[],
): Promise<{ run: LoomRun; groups: number[] }> {
  const { workspace } = folders;
  const run = startScriptedRun(folders, 'go', { json: true });
  await waitUntil(
    () => markers.every((name) => existsSync(join(workspace, name))),
    `the commands to start\n${run.stdout()}\n${run.stderr()}`,
  );
  const groups = markers.map((name) => Number(readFileSync(join(workspace, name), 'utf8')));
  return { run, groups };
}

test('loom run: bash commands, foreground and background, end when loom is killed with SIGKILL', async () => {
  const folders = unsandboxed(
    scriptedFolders({
      rules: [
        callsThenReply(
          'go',
          [
            bashCall(`sleep 300 & ${marker('background-started')}; wait`, {
              run_in_background: true,
            }),
            bashCall(`sleep 300 & ${marker('foreground-started')}; wait`),
          ],
          'never reached',
        ),
      ],
    }),
  );
  const { run, groups } = await startAndWait(folders, ['background-started', 'foreground-started']);
  assert.equal(groups.length, 2);
  for (const group of groups) assert.equal(isGroupAlive(group), true);
  run.child.kill('SIGKILL');
  await run.exited;
  for (const group of groups) {
    await waitUntil(() => !isGroupAlive(group), `process group ${group} to end`);
  }
});

test('loom run: the next open of a killed session kills what escaped the group and logs it', async () => {
  // A detached child leaves the command's process group (setsid), out of the watchdog's reach.
  const escapeGroup =
    `"${process.execPath}" -e "const c = require('node:child_process').spawn('sleep', ['300'], ` +
    `{ detached: true, stdio: 'ignore' }); require('node:fs').writeFileSync('escaped.pid', String(c.pid)); c.unref()"`;
  const folders = unsandboxed(
    scriptedFolders({
      rules: [
        callsThenReply(
          'go',
          [bashCall(`${escapeGroup}; ${marker('started')}; sleep 300`)],
          'never reached',
        ),
        { when: 'again', reply: 'continued' },
      ],
    }),
  );
  const { home, workspace } = folders;
  const { run, groups } = await startAndWait(folders, ['started']);
  const escaped = Number(readFileSync(join(workspace, 'escaped.pid'), 'utf8'));
  await waitUntil(() => groupStarts(run).length === 1, 'the group on the record');
  const sessionId = groupStarts(run)[0]?.sessionId as string;
  try {
    run.child.kill('SIGKILL');
    await run.exited;
    const [group] = groups as [number];
    await waitUntil(() => !isGroupAlive(group), 'the process group to end');
    assert.equal(isAlive(escaped), true, 'the detached process escaped the group');

    const continued = await runScripted(folders, 'again', { args: ['--session', sessionId] });
    assert.equal(continued.code, 0, continued.stderr);
    assert.match(continued.stderr, /killed 1 process left running by bash call call_1/);
    await waitUntil(() => !isAlive(escaped), 'the escaped process to be killed');
    const ends = sessionEvents(home, sessionId).filter((line) => line.type === 'bash/group-end');
    assert.equal(ends.length, 1);
    assert.equal(ends[0]?.data.groupId, group);
    assert.equal(ends[0]?.data.outcome, 'killed');
    assert.equal(ends[0]?.data.killed, 1);
    // The repair closes the group before the call, the step and the turn it ran in.
    const events = sessionEvents(home, sessionId);
    const started = events.findIndex((line) => line.type === 'bash/group-start');
    const nextTurn = events.findIndex(
      (line, index) => index > started && line.type === 'turn/start',
    );
    assert.deepEqual(
      events.slice(started + 1, nextTurn).map((line) => line.type),
      ['bash/group-end', 'tool/result', 'step/end', 'turn/end'],
    );

    const again = await runScripted(folders, 'again', { args: ['--session', sessionId] });
    assert.equal(again.code, 0, again.stderr);
    const endsAfter = sessionEvents(home, sessionId).filter(
      (line) => line.type === 'bash/group-end',
    );
    assert.equal(endsAfter.length, 1, 'a repaired group is not checked again');
  } finally {
    if (isAlive(escaped)) process.kill(escaped, 'SIGKILL');
  }
});

test('loom run: a command that ends normally closes its group on the record', async () => {
  const folders = scriptedFolders({
    rules: [callsThenReply('go', [bashCall('sleep 300 & echo done')], 'ok')],
  });
  const result = await runScripted(folders, 'go', { json: true });
  assert.equal(result.code, 0, result.stderr);
  const lines = jsonLines(result.stdout);
  const start = lines.find((line) => line.type === 'bash/group-start');
  const end = lines.find((line) => line.type === 'bash/group-end');
  assert.ok(start && end, result.stdout);
  assert.equal(end.data.groupId, start.data.groupId);
  assert.equal(end.data.outcome, 'ended');
  const group = start.data.groupId as number;
  await waitUntil(() => !isGroupAlive(group), 'what the command left behind to end with it');
});
