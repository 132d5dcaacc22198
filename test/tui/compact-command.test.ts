/**
 * `/compact` in the terminal, in process on a real runtime with the scripted model: on an idle
 * session it prunes old tool results and shows the compaction line, then the skipped line; with
 * instructions the model summarizes the earlier steps as asked; while a turn runs it is refused.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildRuntime } from '../../src/cli/build-runtime.js';
import type { SlashContext } from '../../src/tui/commands/contract.js';
import type { TranscriptItem } from '../../src/tui/contract.js';
import { InteractionBroker } from '../../src/tui/interaction-broker.js';
import { runSlash } from '../../src/tui/slash-commands.js';
import { TuiSession } from '../../src/tui/tui-session.js';
import { TuiStore } from '../../src/tui/tui-store.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const FILES = 6;
const read = (index: number) => ({
  tools: [{ name: 'read_file', arguments: { path: `file-${index}.txt` } }],
});

/** The notices the store holds now (read straight from its fold, not a frame later). */
function noticesOf(store: TuiStore): Extract<TranscriptItem, { kind: 'notice' }>[] {
  const fold = (store as unknown as { fold: { finished: TranscriptItem[] } }).fold;
  return fold.finished.filter(
    (item): item is Extract<TranscriptItem, { kind: 'notice' }> => item.kind === 'notice',
  );
}

test('/compact prunes an idle session, then has nothing left to prune; with instructions it summarizes; refused while a turn runs', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  for (let index = 1; index <= FILES; index++) {
    writeFileSync(
      join(workspace, `file-${index}.txt`),
      `file ${index}: ${'abcdefghij'.repeat(200)}\n`,
    );
  }
  const model = writeScriptedModel(home, {
    rules: [
      { when: '^Summarize the conversation below', reply: 'Read six files for the user.' },
      {
        when: '^read every file$',
        steps: [
          ...Array.from({ length: FILES }, (_, i) => read(i + 1)),
          { reply: 'read them all' },
        ],
      },
      { when: '^stuck$', steps: [{ hang: true }] },
    ],
  });
  const setup = buildRuntime({ cwd: workspace, home, model: `scripted:${model}` });
  const broker = new InteractionBroker();
  const session = new TuiSession(setup, broker, setup.runtime.start());
  const store = new TuiStore(setup, session.current, broker);
  const context: SlashContext = { session, store, setView: () => {}, exit: () => {} };
  const slash = async (text: string) => {
    await runSlash(text, context);
    const notice = noticesOf(store).at(-1);
    assert.ok(notice, `${text} added no notice`);
    return notice;
  };
  try {
    const { agent, log } = session.current;
    assert.equal((await agent.prompt('read every file')).reason, 'completed');
    const compacted = await slash('/compact');
    assert.equal(compacted.tone, 'info');
    assert.match(compacted.text, /^compacted: 4 tool results pruned \(\S+ → \S+ tokens\)$/);
    const compaction = log.events.filter((event) => event.type === 'context/compact');
    assert.equal(compaction.length, 1);
    assert.match((await slash('/compact')).text, /^compaction skipped: /);

    // A second turn brings six whole results: the summary of all but the last three steps
    // replaces three of them and the first turn's stubs.
    assert.equal((await agent.prompt('read every file')).reason, 'completed');
    const summarized = await slash('/compact keep the file names');
    assert.equal(summarized.tone, 'info');
    assert.match(
      summarized.text,
      /^compacted: 2 turns \(11 steps\) summarized \(\S+ → \S+ tokens\)$/,
    );
    const last = log.events.findLast((event) => event.type === 'context/compact');
    const data = last?.data as { summary: string; trigger: string } | undefined;
    assert.equal(data?.trigger, 'manual');
    assert.match(data?.summary ?? '', /Read six files for the user\./);

    const running = agent.prompt('stuck');
    const count = log.events.length;
    const busy = await slash('/compact');
    assert.equal(busy.tone, 'warning');
    assert.match(busy.text, /^\/compact waits for an idle session: a turn is running/);
    assert.equal(
      log.events.slice(count).filter((event) => event.type.startsWith('context/compact')).length,
      0,
    );
    session.interrupt();
    await running;
  } finally {
    store.dispose();
    await session.close();
  }
});
