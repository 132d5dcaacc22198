import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAXIMUM_LISTED_SAVED_WORKFLOWS,
  WORKFLOW_TOOL_DESCRIPTION,
  workflowToolDescription,
} from '../../src/workflow/authoring-guide.js';
import { installWorkflows } from '../../src/workflow/install.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { eventsOf, subagentFixture } from '../subagent/subagent-fixture.js';

const GREET = `export const meta = { name: 'greeter', description: 'Greets each name', phases: [{ title: 'greet' }] };
phase('greet');
const greetings = await parallel(args.names.map((name) => () => agent('greet ' + name, { label: name })));
return { greetings };
`;

const call = (when: string, toolArguments: Record<string, unknown>) => ({
  when,
  steps: [
    { tools: [{ name: 'workflow', arguments: toolArguments }] },
    { reply: '{{lastToolResult}}' },
  ],
});

const model = {
  rules: [
    call('^run the saved one$', { name: 'greet-all', args: { names: ['ann', 'bob'] } }),
    call('^run a missing one$', { name: 'nope', args: {} }),
    call('^run both$', {
      name: 'greet-all',
      script: 'return 1;',
      meta: { name: 'x', description: 'y' },
    }),
    call('^run neither$', { args: {} }),
    call('^run with meta$', { name: 'greet-all', meta: { name: 'x', description: 'y' } }),
    call('^run a path$', { name: '../workflows/greet-all' }),
    { when: '^greet (\\w+)$', reply: 'hi {{1}}' },
  ],
};

/** A root agent with the workflow layer over a project and a LOOM_HOME holding saved workflows. */
function setup() {
  const cwd = temporaryFolder();
  const home = temporaryFolder();
  writeTree(home, {
    'workflows/personal.js':
      "export const meta = { name: 'p', description: 'A personal one' };\nreturn 1;\n",
  });
  return subagentFixture({
    model,
    home,
    install: (runtime, services) => {
      const layer = installWorkflows(runtime, services, { home, cwd });
      // Written after the layer is installed: the description is read when a prompt needs it.
      writeTree(cwd, {
        '.loom/workflows/greet-all.js': GREET,
        '.loom/workflows/broken.js': 'return 1;\n',
      });
      return layer.dispose;
    },
  });
}

test('the workflow tool runs a saved workflow by {name, args}, and its description lists the saved ones', async () => {
  const fixture = setup();
  try {
    const answer = await fixture.root.agent.prompt('run the saved one');
    assert.match(answer.text, /^Workflow "greeter" completed with 2 agents\./);
    assert.match(answer.text, /"hi ann"/);
    assert.match(answer.text, /"hi bob"/);
    // Deferred: the first request lists it by name; its call loads it, so the next one has it whole.
    const [first] = fixture.model.calls;
    const request = fixture.model.calls.find((call) =>
      call.tools.some((tool) => tool.name === 'workflow'),
    );
    const listing = first?.tools.find((tool) => tool.name === 'load_tools')?.description ?? '';
    assert.match(listing, /^- workflow: /m);
    assert.ok(!first?.tools.some((tool) => tool.name === 'workflow'));
    const description = request?.tools.find((tool) => tool.name === 'workflow')?.description ?? '';
    assert.ok(description.startsWith(WORKFLOW_TOOL_DESCRIPTION));
    assert.ok(
      description.endsWith(
        '\n\nSaved workflows (call with {name, args} instead of meta and script; the file gives both):\n- greet-all: Greets each name\n- personal: A personal one',
      ),
      description.slice(WORKFLOW_TOOL_DESCRIPTION.length),
    );
    const parameters = request?.tools.find((tool) => tool.name === 'workflow')?.parameters as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    assert.deepEqual(Object.keys(parameters.properties), [
      'meta',
      'script',
      'name',
      'args',
      'run_in_background',
      'resume',
      'budget_tokens',
    ]);
    assert.equal(parameters.required, undefined);
  } finally {
    await fixture.close();
  }
});

test('the workflow tool takes exactly one of script and name, and a name only of a saved workflow', async () => {
  const fixture = setup();
  try {
    const cases: Array<[string, RegExp]> = [
      [
        'run a missing one',
        /^INVALID_ARGUMENT: no saved workflow named "nope" \(saved: broken, greet-all, personal\)$/,
      ],
      [
        'run both',
        /^INVALID_ARGUMENT: give either `script` \(with `meta`\) or `name` \(a saved workflow\), not both$/,
      ],
      [
        'run neither',
        /^INVALID_ARGUMENT: give `script` and `meta` to run a script, or `name` to run a saved workflow$/,
      ],
      ['run with meta', /^INVALID_ARGUMENT: a saved workflow takes its meta from its file/],
      ['run a path', /^INVALID_ARGUMENT: no saved workflow named "\.\.\/workflows\/greet-all"/],
    ];
    for (const [prompt] of cases) await fixture.root.agent.prompt(prompt);
    const results = eventsOf(fixture.root.log.events, 'tool/result');
    assert.equal(results.length, cases.length);
    cases.forEach(([prompt, expected], index) => {
      assert.equal(results[index]?.isError, true, prompt);
      assert.match(results[index]?.content ?? '', expected, prompt);
    });
    assert.equal(fixture.starts.length, 0, 'no run started a child');
  } finally {
    await fixture.close();
  }
});

test('the description lists at most 50 saved workflows on one line each and counts the rest', () => {
  assert.equal(workflowToolDescription([]), WORKFLOW_TOOL_DESCRIPTION);
  const saved = Array.from({ length: MAXIMUM_LISTED_SAVED_WORKFLOWS + 3 }, (_, index) => ({
    name: `flow-${index}`,
    description: `does\n  thing ${index}`,
  }));
  const lines = workflowToolDescription(saved).split('\n');
  assert.equal(lines.at(-1), '- … and 3 more (`loom workflow list` shows them all)');
  assert.equal(lines.at(-2), `- flow-49: does thing 49`);
  assert.equal(lines.filter((line) => line.startsWith('- flow-')).length, 50);
});
