/**
 * `/context`'s breakdown: over a session of a scripted model declaring a 16k window whose turn of
 * 30 file reads compacted, the pure function splits the next request into system prompt, tool
 * schemas, messages, tool results and pruned stubs (the parts add up to the estimate), sizes the
 * total from the last reported prompt, and names the window's source; the live report of the
 * same agent says the same.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { prunedCallIds } from '../../src/context/compacted-view.js';
import { contextBreakdown, contextBreakdownText } from '../../src/context/context-breakdown.js';
import { contextReport } from '../../src/context/context-report.js';
import { DEFAULT_CONTEXT_SETTINGS, modelCatalogKey } from '../../src/context/contract.js';
import { installContext } from '../../src/context/install.js';
import { createModelCatalog } from '../../src/context/model-catalog.js';
import { prunedStub } from '../../src/context/pruning.js';
import { Context } from '../../src/core/context.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { builtinTools } from '../../src/tools/index.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const STEPS = 30;

function workspace(): string {
  const home = temporaryFolder('loom-breakdown-');
  for (let index = 1; index <= STEPS; index++) {
    const line = `file ${index}: ${'abcdefghij'.repeat(6)}\n`;
    writeFileSync(join(home, `file-${index}.txt`), line.repeat(Math.ceil(2048 / line.length)));
  }
  return home;
}

test('the breakdown of a compacted session: parts, stubs, total from the report, the window source', async () => {
  const home = workspace();
  const model = createScriptedModel({
    context: 16_000,
    rules: [
      {
        when: 'read',
        steps: [
          ...Array.from({ length: STEPS }, (_, index) => ({
            tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
          })),
          { reply: 'read them all' },
        ],
      },
    ],
  });
  const root = new Context();
  root.provide(modelCatalogKey, createModelCatalog({}));
  const runtime = runtimeOver(model, home, root);
  const tools = builtinTools({ workspace: { root: home, extraRoots: [] } });
  runtime.offerTools(tools.filter((tool) => tool.name === 'read_file'));
  installContext(runtime);
  const handle = runtime.start();
  try {
    const outcome = await handle.agent.prompt('read every file');
    assert.equal(outcome.reason, 'completed', JSON.stringify(outcome));
    const events = handle.log.events;
    const pruned = prunedCallIds(events);
    assert.ok(pruned.size > 0, 'the session compacted');

    const system = 's'.repeat(400);
    const toolSpecs = [{ name: 'read_file', description: 'reads', parameters: { type: 'object' } }];
    const breakdown = contextBreakdown({
      events,
      system,
      tools: toolSpecs,
      model: {
        spec: model.id,
        context: 16_000,
        output: 4096,
        images: false,
        tools: true,
        reasoning: false,
        source: 'client',
      },
      window: 16_000,
      settings: DEFAULT_CONTEXT_SETTINGS,
    });
    assert.equal(breakdown.system, 100);
    assert.equal(breakdown.tools, Math.ceil(JSON.stringify(toolSpecs).length / 4));
    assert.equal(breakdown.stubCount, pruned.size);
    assert.equal(breakdown.toolResultCount + breakdown.stubCount, STEPS);
    const stubCharacters = [...pruned].reduce(
      (sum, callId) => sum + prunedStub('read_file', callId).length,
      0,
    );
    assert.equal(breakdown.stubs, Math.ceil(stubCharacters / 4));
    // Each unpruned result is a 2 KB file (with its line numbers): far more than a stub.
    assert.ok(breakdown.toolResults > breakdown.toolResultCount * 400);
    assert.ok(breakdown.messages > 0);
    assert.equal(breakdown.summaryCount, 0);
    assert.equal(
      breakdown.estimate,
      breakdown.system +
        breakdown.tools +
        breakdown.messages +
        breakdown.toolResults +
        breakdown.stubs +
        breakdown.summaries,
    );
    // The scripted model reports every request's prompt size, so the total starts from it.
    assert.ok(breakdown.reported !== undefined && breakdown.reported > 0);
    assert.equal(breakdown.share, breakdown.total / 16_000);
    assert.ok(breakdown.total < 16_000 * 0.8, `a total of ${breakdown.total}`);

    const text = contextBreakdownText(breakdown);
    assert.match(text, /system prompt +100\n/);
    assert.match(text, new RegExp(`pruned stubs .* ${pruned.size} stubs`));
    assert.match(text, new RegExp(`tool results .* ${breakdown.toolResultCount} results`));
    assert.match(text, /total .*% of 16k/);
    assert.match(text, /warns at 70%, compacts at 80% \(12,800 tokens\)/);
    assert.match(text, /window of 16k as the model client states it/);

    // The live report: the agent's own prompt and tools, its model from the catalog.
    const report = await contextReport(handle);
    assert.match(report, new RegExp(`pruned stubs .* ${pruned.size} stubs`));
    assert.match(report, /tool schemas .* 2 tools/);
    assert.match(
      report,
      new RegExp(
        `model ${model.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: window of 16k as the model client states it`,
      ),
    );
  } finally {
    handle.close();
  }
});

test('a model the catalog does not know: the breakdown says the window is the default and names the key', () => {
  const text = contextBreakdownText(
    contextBreakdown({
      events: [],
      system: '',
      tools: [],
      model: {
        spec: 'openai-compatible:nosuchmodel@http://127.0.0.1:9/v1',
        context: 32_000,
        output: 4096,
        images: false,
        tools: true,
        reasoning: false,
        source: 'default',
      },
      window: 32_000,
      settings: DEFAULT_CONTEXT_SETTINGS,
    }),
  );
  assert.match(text, /total +0 {2}0% of 32k\n/);
  assert.match(text, /the default for a model the catalog does not know/);
  assert.match(
    text,
    /set models\."openai-compatible:nosuchmodel@http:\/\/127\.0\.0\.1:9\/v1"\.context/,
  );
});
