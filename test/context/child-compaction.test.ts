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
