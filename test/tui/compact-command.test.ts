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
/** Resolves once the store's footer shows a context size that `matches`. */
function footerShows(store: TuiStore, matches: (tokens: number) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!matches(store.getSnapshot().footer.contextTokens)) return;
      stop();
      resolve();
    };
    const stop = store.subscribe(check);
    check();
  });
}

function itemsOf<Kind extends TranscriptItem['kind']>(
  store: TuiStore,
  kind: Kind,
): Extract<TranscriptItem, { kind: Kind }>[] {
  const fold = (store as unknown as { fold: { finished: TranscriptItem[] } }).fold;
  return fold.finished.filter(
    (item): item is Extract<TranscriptItem, { kind: Kind }> => item.kind === kind,
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
  /** Runs `text`; returns the one context line it added, or else its last notice. */
  const slash = async (text: string) => {
    const lines = itemsOf(store, 'context').length;
    const notices = itemsOf(store, 'notice').length;
    await runSlash(text, context);
    const added = itemsOf(store, 'context').slice(lines);
    assert.ok(added.length <= 1, JSON.stringify(added));
    const [line] = added;
    if (line) {
      // The logged compaction is the line; no notice repeats it.
      const repeated = itemsOf(store, 'notice')
        .slice(notices)
        .filter((n) => n.text === line.text);
      assert.deepEqual(repeated, []);
      return { tone: 'context' as const, text: line.text, detail: line.detail };
    }
    const notice = itemsOf(store, 'notice').at(-1);
    assert.ok(notice, `${text} added no notice`);
    return { tone: notice.tone, text: notice.text, detail: undefined };
  };
  try {
    const { agent, log } = session.current;
    assert.equal((await agent.prompt('read every file')).reason, 'completed');
    const compacted = await slash('/compact');
    assert.equal(compacted.tone, 'context');
    assert.equal(compacted.detail, undefined);
    // The footer's context share follows the compaction before any request.
    const pruning = log.events.findLast((event) => event.type === 'context/compact');
    const after = (pruning?.data as { after: number } | undefined)?.after;
    await footerShows(store, (tokens) => tokens === after);
    assert.match(compacted.text, /^compacted: 4 tool results pruned \(\S+ → \S+ tokens\)$/);
    const compaction = log.events.filter((event) => event.type === 'context/compact');
    assert.equal(compaction.length, 1);
    assert.match((await slash('/compact')).text, /^compaction skipped: /);

    // A second turn brings six whole results: the summary of all but the last three steps
    // replaces three of them and the first turn's stubs.
    assert.equal((await agent.prompt('read every file')).reason, 'completed');
    const summarized = await slash('/compact keep the file names');
    assert.equal(summarized.tone, 'context');
    assert.match(
      summarized.text,
      /^compacted: 2 turns \(11 steps\) summarized \(\S+ → \S+ tokens\)$/,
    );
    const last = log.events.findLast((event) => event.type === 'context/compact');
    const data = last?.data as { summary: string; trigger: string } | undefined;
    assert.equal(data?.trigger, 'manual');
    assert.match(data?.summary ?? '', /Read six files for the user\./);
    // The summary is folded under the line.
    assert.equal(summarized.detail, data?.summary);

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
