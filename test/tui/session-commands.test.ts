/**
 * The session's slash commands in process, on a real runtime with the scripted model: `/model`
 * switching the model for the next turns, `/todos`, `/goal` show/pause/resume/clear, `/cost`
 * per agent (a subagent included, after a reopen too; cache reads and writes at their prices)
 * and `/new`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildRuntime } from '../../src/cli/build-runtime.js';
import { normalizeSettlement } from '../../src/cli/goal-output.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { goalOf } from '../../src/goal/install.js';
import { todosOf } from '../../src/todo/install.js';
import type { SlashContext } from '../../src/tui/commands/contract.js';
import type { TranscriptItem, TuiView } from '../../src/tui/contract.js';
import { InteractionBroker } from '../../src/tui/interaction-broker.js';
import { runSlash } from '../../src/tui/slash-commands.js';
import { TuiSession } from '../../src/tui/tui-session.js';
import { TuiStore } from '../../src/tui/tui-store.js';
import type { WorkflowRuns } from '../../src/tui/workflow-runs.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

interface Terminal {
  home: string;
  modelPath: string;
  session: TuiSession;
  store: TuiStore;
  views: TuiView[];
  /** Runs `/command`. */
  run(text: string): Promise<void>;
  /** Runs `/command` and resolves with the notice it added. */
  slash(text: string): Promise<Extract<TranscriptItem, { kind: 'notice' }>>;
  close(): Promise<void>;
}

function openTerminal(model: unknown, config = ''): Terminal {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const modelPath = writeScriptedModel(home, model);
  if (config !== '') writeFileSync(join(home, 'config.yaml'), config);
  const setup = buildRuntime({ cwd: workspace, home, model: `scripted:${modelPath}` });
  const broker = new InteractionBroker();
  const session = new TuiSession(setup, broker, setup.runtime.start());
  const store = new TuiStore(setup, session.current, broker);
  const views: TuiView[] = [];
  const context: SlashContext = {
    session,
    store,
    setView: (view) => views.push(view),
    exit: () => {},
  };
  return {
    home,
    modelPath,
    session,
    store,
    views,
    run: (text) => runSlash(text, context),
    async slash(text) {
      const before = noticesOf(store).at(-1);
      await runSlash(text, context);
      const notice = noticesOf(store).at(-1);
      assert.ok(notice && notice !== before, `${text} added no notice`);
      return notice;
    },
    async close() {
      store.dispose();
      await session.close();
    },
  };
}

/** The notices the store holds now (read straight from its fold, not a frame later). */
function noticesOf(store: TuiStore): Extract<TranscriptItem, { kind: 'notice' }>[] {
  const fold = (store as unknown as { fold: { finished: TranscriptItem[] } }).fold;
  return fold.finished.filter(
    (item): item is Extract<TranscriptItem, { kind: 'notice' }> => item.kind === 'notice',
  );
}

async function turn(terminal: Terminal, text: string): Promise<void> {
  const { agent } = terminal.session.current;
  await agent.prompt(text);
}

const modelsOfRequests = (events: readonly SessionEvent[]) =>
  events
    .filter((event) => event.type === 'request/header')
    .map((event) => (event as SessionEvent<'request/header'>).data.model);

test('/model shows the model, switches it for the next turn, and names a spec it cannot use', async () => {
  const terminal = openTerminal({ default: { reply: 'first model' } });
  try {
    const other = writeScriptedModel(temporaryFolder(), { default: { reply: 'second model' } });
    const shown = await terminal.slash('/model');
    assert.match(shown.text, new RegExp(`model scripted:${terminal.modelPath} \\(default`));
    await turn(terminal, 'one');
    const switched = await terminal.slash(`/model scripted:${other}`);
    assert.equal(switched.tone, 'info');
    assert.match(switched.text, new RegExp(`model scripted:${other} from the next turn on`));
    await turn(terminal, 'two');
    const { events } = terminal.session.current.log;
    assert.deepEqual(modelsOfRequests(events), [
      `scripted:${terminal.modelPath}`,
      `scripted:${other}`,
    ]);
    const replies = events
      .filter((event) => event.type === 'assistant/message')
      .map((event) => (event as SessionEvent<'assistant/message'>).data.text);
    assert.deepEqual(replies, ['first model', 'second model']);
    assert.equal(terminal.store.getSnapshot().footer.model, `scripted:${terminal.modelPath}`);
    await new Promise<void>((resolve) => {
      const stop = terminal.store.subscribe(() => {
        if (terminal.store.getSnapshot().footer.model !== `scripted:${other}`) return;
        stop();
        resolve();
      });
    });
    const refused = await terminal.slash('/model nowhere:thing');
    assert.equal(refused.tone, 'error');
    assert.match(refused.text, /^\/model: .*nowhere/);
  } finally {
    await terminal.close();
  }
});

test('/todos shows the list the model wrote, or says it is empty', async () => {
  const terminal = openTerminal({ default: { reply: 'ok' } });
  try {
    assert.match((await terminal.slash('/todos')).text, /\(todo list is empty\)/);
    todosOf(terminal.session.current)?.write([
      { content: 'read the code', status: 'completed' },
      { content: 'fix it', status: 'in_progress', activeForm: 'fixing it' },
      { content: 'ship it', status: 'pending' },
    ]);
    assert.equal(
      (await terminal.slash('/todos')).text,
      'todos:\n  [x] read the code\n  [>] fixing it\n  [ ] ship it',
    );
  } finally {
    await terminal.close();
  }
});

test('/goal shows, pauses, refuses a resume past its cap, resumes with a larger cap and clears', async () => {
  const terminal = openTerminal({
    rules: [{ when: '^\\[goal round', reply: 'worked' }],
    default: { reply: 'ok' },
  });
  try {
    assert.match((await terminal.slash('/goal')).text, /no goal; \/goal OBJECTIVE/);
    const goals = goalOf(terminal.session.current);
    assert.ok(goals);
    goals.service.create({ objective: 'tidy up', maxRounds: 1, by: 'human' });
    assert.match(
      (await terminal.slash('/goal')).text,
      /goal goal-1: tidy up\nactive, not running, round 0 of 1/,
    );
    assert.equal(
      (await terminal.slash('/goal pause')).text,
      'goal goal-1 paused; /goal resume goes on',
    );
    assert.equal(goals.service.goal?.phase, 'paused');
    assert.equal(goals.service.goal?.reason, 'paused by the user (/goal pause)');
    const cap = await terminal.slash('/goal resume x');
    assert.equal(cap.tone, 'error');
    assert.match(cap.text, /round cap, a whole number of at least 1, not "x"/);

    const settled = goals.driver.whenSettled();
    await terminal.slash('/goal resume');
    assert.equal(goals.service.activation, 'armed');
    // The one round runs, and the cap stops the rounds.
    assert.equal(normalizeSettlement(await settled).kind, 'round-cap');
    await waitForNotice(terminal.store, /goal started all 1 rounds without completing/);
    const past = await terminal.slash('/goal resume');
    assert.match(past.text, /has started 1 of its 1 rounds; \/goal resume N with N above 1/);
    await terminal.slash('/goal resume 2');
    await waitForNotice(terminal.store, /goal started all 2 rounds/);
    assert.equal(goals.service.goal?.roundsStarted, 2);
    assert.equal((await terminal.slash('/goal clear')).text, 'goal goal-1 cleared');
    assert.equal(goals.service.goal, null);
    assert.match((await terminal.slash('/goal')).text, /no goal/);
  } finally {
    await terminal.close();
  }
});

async function waitForNotice(store: TuiStore, pattern: RegExp): Promise<void> {
  const found = () => noticesOf(store).some((notice) => pattern.test(notice.text));
  while (!found()) {
    await new Promise<void>((resolve) => {
      const stop = store.subscribe(() => {
        stop();
        resolve();
      });
    });
  }
}

test('/cost lists each agent with its tokens and cost, the subagent included, also after a reopen', async () => {
  const model = {
    rules: [
      {
        when: 'delegate',
        steps: [
          { tools: [subagentCall('helper', 'child work')], usage: { input: 1000, output: 100 } },
          { reply: 'delegated', usage: { input: 2000, output: 200 } },
        ],
      },
    ],
    default: { reply: 'child done', usage: { input: 500, output: 50 } },
  };
  const terminal = openTerminal(model);
  const priced = `prices:\n  ${JSON.stringify(`scripted:${terminal.modelPath}`)}: { input: 2, output: 10 }\n`;
  writeFileSync(join(terminal.home, 'config.yaml'), priced);
  await terminal.close();
  // Reopened with the prices in config.
  const setup = buildRuntime({
    cwd: terminal.session.setup.runtime.cwd,
    home: terminal.home,
    model: `scripted:${terminal.modelPath}`,
  });
  const broker = new InteractionBroker();
  const session = new TuiSession(setup, broker, setup.runtime.start());
  const store = new TuiStore(setup, session.current, broker);
  const context: SlashContext = { session, store, setView: () => {}, exit: () => {} };
  const cost = async () => {
    const before = noticesOf(store).length;
    await runSlash('/cost', context);
    return noticesOf(store)[before]?.text ?? '';
  };
  try {
    await session.current.agent.prompt('delegate');
    const expected = [
      'cost per agent:',
      '  main: 3.0k in, 300 out · $0.0090 · ',
      '    helper: 500 in, 50 out · $0.0015 · ',
      'total: 3.5k in, 350 out · $0.0105',
    ];
    const shown = (await cost()).split('\n');
    assert.equal(shown.length, 4, shown.join('\n'));
    for (const [index, line] of expected.entries()) {
      assert.ok(shown[index]?.startsWith(line), `${shown[index]} should start with ${line}`);
    }
    const id = session.sessionId;
    await session.switchTo(store);
    assert.match(
      await cost(),
      /^cost per agent:\n {2}main: 0 in, 0 out · \$0\.0000 · no requests\n/,
    );
    await session.switchTo(store, id);
    const reopened = (await cost()).split('\n');
    assert.equal(reopened[3], shown[3]);
    assert.ok(reopened[2]?.startsWith('    helper: 500 in, 50 out'));
    assert.equal(store.getSnapshot().sessionId, id);
  } finally {
    store.dispose();
    await session.close();
  }
});

test('/cost counts a workflow agent running in its own process (an ACP child) at the tokens /workflows shows', async () => {
  const terminal = openTerminal(
    {
      rules: [
        callsThenReply(
          '^go$',
          [
            {
              name: 'workflow',
              arguments: {
                meta: { name: 'w', description: 'one child', phases: [{ title: 'a' }] },
                script: "phase('a'); return await agent('x', { label: 'one' });",
              },
            },
          ],
          'ok',
        ),
      ],
      default: { reply: 'child done' },
    },
    'workflow:\n  offerTool: always\n  provider: acp\n',
  );
  try {
    await terminal.session.current.agent.prompt('go');
    const workflows = (terminal.store as unknown as { workflows: WorkflowRuns }).workflows;
    const agent = workflows.list[0]?.agents.get(1);
    assert.equal(agent?.status, 'completed');
    const usage = agent?.usage;
    assert.ok(usage && usage.input > 0, "the workflow reported the child's tokens");
    const lines = (await terminal.slash('/cost')).text.split('\n');
    const child = lines.find((line) => line.trim().startsWith('one:'));
    assert.ok(
      child?.startsWith(`    one: ${usage.input} in, ${usage.output} out`),
      lines.join('\n'),
    );
  } finally {
    await terminal.close();
  }
});

/** A turn that delegates, every request reporting cache reads or writes (SPEC §3 `usage`). */
const cachingModel = {
  rules: [
    {
      when: 'delegate',
      steps: [
        {
          tools: [subagentCall('helper', 'child work')],
          usage: { input: 8000, output: 100, cacheRead: 6000, cacheWrite: 1000 },
        },
        { reply: 'delegated', usage: { input: 2000, output: 100, cacheRead: 2000 } },
      ],
    },
  ],
  default: { reply: 'child done', usage: { input: 1000, output: 50, cacheWrite: 400 } },
};

test('/cost shows cache reads and writes per agent and in total, priced at the cache prices of models.NAME.prices', async () => {
  // Dollars per million: plain input 2, cache read 0.5, cache write 2.5, output 10.
  const terminal = openTerminal(
    cachingModel,
    'models:\n  scripted:\n    prices: { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 2.5 }\n',
  );
  try {
    await terminal.session.current.agent.prompt('delegate');
    const lines = (await terminal.slash('/cost')).text.split('\n');
    const spec = `scripted:${terminal.modelPath}`;
    assert.deepEqual(lines, [
      'cost per agent:',
      // 1000 plain × 2 + 8000 read × 0.5 + 1000 written × 2.5 + 200 out × 10 = 10 500 micro-dollars.
      `  main: 10k in (8.0k cached, 1.0k written to cache), 200 out · $0.0105 · ${spec}`,
      // 600 plain × 2 + 400 written × 2.5 + 50 out × 10 = 2700.
      `    helper: 1.0k in (400 written to cache), 50 out · $0.0027 · ${spec}`,
      'total: 11k in (8.0k cached, 1.4k written to cache), 250 out · $0.0132',
    ]);
  } finally {
    await terminal.close();
  }
});

test('/cost without a price says which config keys give one', async () => {
  const terminal = openTerminal(cachingModel);
  try {
    await terminal.session.current.agent.prompt('delegate');
    const lines = (await terminal.slash('/cost')).text.split('\n');
    const spec = JSON.stringify(`scripted:${terminal.modelPath}`);
    assert.ok(
      lines[1]?.startsWith(
        '  main: 10k in (8.0k cached, 1.0k written to cache), 200 out · no price',
      ),
      lines.join('\n'),
    );
    const total = lines.at(-1) ?? '';
    assert.ok(
      total.startsWith(
        'total: 11k in (8.0k cached, 1.4k written to cache), 250 out · cost unknown',
      ),
      total,
    );
    assert.ok(total.includes(`models.${spec}.prices or prices.${spec}`), total);
    assert.match(total, /\{input, output, cacheRead\?, cacheWrite\?\}/);
  } finally {
    await terminal.close();
  }
});

test('/new leaves the session for a new one; /resume opens the picker only when there is another session', async () => {
  const terminal = openTerminal({ default: { reply: 'ok' } });
  try {
    const none = await terminal.slash('/resume');
    assert.match(none.text, /no other session in this workspace/);
    assert.deepEqual(terminal.views, []);
    const first = terminal.session.sessionId;
    await turn(terminal, 'hello');
    const fresh = await terminal.slash('/new');
    assert.notEqual(terminal.session.sessionId, first);
    assert.equal(fresh.text, `new session ${terminal.session.sessionId}`);
    await terminal.run('/resume');
    assert.deepEqual(terminal.views, ['sessions']);
  } finally {
    await terminal.close();
  }
});
