/**
 * A child agent compacts like its parent: the context layer installed on the runtime gives each
 * child made through the subagent layer its own accounting, pruning and `recall`, over the
 * child's own session log (here over the conservative window of a model that states none).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CONSERVATIVE_WINDOW } from '../../src/context/context-window.js';
import { installContext } from '../../src/context/install.js';
import { RECALL_TOOL } from '../../src/context/recall-tool.js';
import { SUMMARY_REQUEST_START } from '../../src/context/summary-prompt.js';
import { builtinTools } from '../../src/tools/index.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { eventsOf, subagentFixture } from '../subagent/subagent-fixture.js';

const READS = 12;

test('a child prunes its own old tool results and recalls them from its own log', async () => {
  const home = temporaryFolder('loom-context-child-');
  for (let index = 1; index <= READS; index++) {
    writeFileSync(join(home, `file-${index}.txt`), `child file ${index}\n`.repeat(128));
  }
  const reads = Array.from({ length: READS }, (_, index) => ({
    tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
  }));
  const readFile = builtinTools({ workspace: { root: home, extraRoots: [] } }).filter(
    (tool) => tool.name === 'read_file',
  );
  const fixture = subagentFixture({
    home,
    tools: readFile,
    model: {
      rules: [
        {
          when: 'child reads',
          steps: [
            ...reads,
            { tools: [{ name: RECALL_TOOL, arguments: { id: 'call_1' } }] },
            { reply: 'child done' },
          ],
        },
      ],
      default: { reply: 'ok' },
    },
    install: (runtime) => installContext(runtime, { compactAt: 0.1, warnAt: 0.05 }).dispose,
  });
  try {
    const run = fixture.services.registry.start('spawn', {
      parent: { sessionId: fixture.rootId, delegationDepth: 0 },
      prompt: 'child reads',
    });
    const result = await run.result;
    assert.equal(result.output, 'child done');
    const child = fixture.load(run.id);
    const usages = eventsOf(child.events, 'context/usage');
    assert.equal(usages.length, READS + 2);
    for (const usage of usages) assert.equal(usage.window, CONSERVATIVE_WINDOW);
    const compactions = eventsOf(child.events, 'context/compact');
    assert.ok(compactions.some((compaction) => compaction.pruned.includes('call_1')));
    const results = eventsOf(child.events, 'tool/result');
    const original = results.find((entry) => entry.callId === 'call_1');
    const recalled = results.find((entry) => entry.name === RECALL_TOOL);
    assert.ok(original && recalled);
    assert.equal(recalled.isError, false);
    assert.equal(recalled.content, original.content);
  } finally {
    await fixture.close();
  }
});

test("a child's summary request is charged through onUsage and counts in its result's usage", async () => {
  const home = temporaryFolder('loom-context-child-');
  for (let index = 1; index <= 3; index++) {
    writeFileSync(join(home, `file-${index}.txt`), `child file ${index}\n`);
  }
  const readFile = builtinTools({ workspace: { root: home, extraRoots: [] } }).filter(
    (tool) => tool.name === 'read_file',
  );
  const summaryUsage = { input: 5000, output: 300 };
  const fixture = subagentFixture({
    home,
    tools: readFile,
    model: {
      rules: [
        {
          when: `^${SUMMARY_REQUEST_START}`,
          reply: 'The parent sent a long brief.',
          usage: summaryUsage,
        },
        {
          when: '^child brief',
          steps: [
            ...[1, 2, 3].map((index) => ({
              tools: [{ name: 'read_file', arguments: { path: `file-${index}.txt` } }],
            })),
            { reply: 'child done' },
          ],
        },
      ],
    },
    // A 20k-token brief passes compactAt (half the 32k window) with nothing to prune: only a
    // summary of the brief and the first step can bring the request down.
    install: (runtime) =>
      installContext(runtime, { compactAt: 0.5, warnAt: 0.4, keepSteps: 1 }).dispose,
  });
  try {
    const reports: Array<{ usage: unknown; model: string }> = [];
    const run = fixture.services.registry.start('spawn', {
      parent: { sessionId: fixture.rootId, delegationDepth: 0 },
      prompt: `child brief ${'x'.repeat(80_000)}`,
      onUsage: (report) => reports.push(report),
    });
    const result = await run.result;
    assert.equal(result.output, 'child done');
    const child = fixture.load(run.id);
    const [side] = eventsOf(child.events, 'model/side-request');
    assert.deepEqual(side?.usage, summaryUsage);
    assert.equal(eventsOf(child.events, 'context/compact')[0]?.summarized?.steps, 1);
    const steps = eventsOf(child.events, 'assistant/message');
    assert.deepEqual(
      reports.map((report) => report.usage),
      [...steps.slice(0, 2), side, ...steps.slice(2)].map((request) => request?.usage),
    );
    const stepInput = steps.reduce((sum, step) => sum + step.usage.input, 0);
    assert.equal(result.usage?.input, stepInput + summaryUsage.input);
  } finally {
    await fixture.close();
  }
});
