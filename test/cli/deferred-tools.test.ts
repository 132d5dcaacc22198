/**
 * Deferred tools through `bin/loom run` (issue 36): a tool a turn rarely needs is listed by name
 * in `load_tools`' description with no schema of its own; `load_tools` (or a first direct call)
 * logs `tools/loaded`, and the next request carries its schema, in this turn, the next one and
 * after a resume. Config turns deferral off or keeps named tools in full.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelToolSpec } from '../../src/llm/contract.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import {
  ndjsonLines,
  requestPrompts,
  sessionIdOf,
  sessions,
  toolResults,
} from '../helpers/session-files.js';
import { runScripted, scriptedFolders } from './loom-process.js';

const names = (tools: readonly ModelToolSpec[]) => tools.map((tool) => tool.name);
const loadToolsOf = (tools: readonly ModelToolSpec[]) => {
  const tool = tools.find((candidate) => candidate.name === 'load_tools');
  assert.ok(tool, `load_tools is offered among ${names(tools).join(', ')}`);
  return tool;
};

const model = {
  rules: [
    callsThenReply(
      '^plan reminders$',
      [
        { name: 'load_tools', arguments: { names: ['schedule_list'] } },
        { name: 'schedule_list', arguments: {} },
      ],
      'listed: {{lastToolResult}}',
    ),
    callsThenReply(
      '^typo$',
      [{ name: 'load_tools', arguments: { names: ['schedul_lst'] } }],
      '{{lastToolResult}}',
    ),
    callsThenReply('^jobs$', [{ name: 'job_list', arguments: {} }], 'jobs: {{lastToolResult}}'),
  ],
  default: { reply: 'ok' },
};

test('a deferred tool has no schema in the first request; load_tools brings it into the next one and it runs', async () => {
  const folders = scriptedFolders(model);
  const result = await runScripted(folders, 'plan reminders', { json: true });
  assert.equal(result.code, 0, result.stderr);
  const [session] = sessions(folders.home);
  assert.ok(session);
  const requests = requestPrompts(session.events);
  assert.equal(requests.length, 3);
  const [first, second, third] = requests.map((request) => request.tools) as [
    ModelToolSpec[],
    ModelToolSpec[],
    ModelToolSpec[],
  ];
  assert.ok(
    !names(first).includes('schedule_list'),
    'no schedule_list schema in the first request',
  );
  assert.match(loadToolsOf(first).description, /^- schedule_list: .+$/m);
  assert.match(loadToolsOf(first).description, /^- create_goal: .+$/m);
  const loaded = session.events.filter((event) => event.type === 'tools/loaded');
  assert.deepEqual(
    loaded.map((event) => (event.data as { names: string[] }).names),
    [['schedule_list']],
  );
  const scheduleList = second.find((tool) => tool.name === 'schedule_list');
  assert.ok(scheduleList, 'the next request carries schedule_list');
  assert.equal((scheduleList.parameters as { type?: string }).type, 'object');
  // Loading appends: what the first request offered comes first, unchanged, then the loaded tool.
  assert.deepEqual(second.slice(0, first.length), first);
  assert.deepEqual(names(second).slice(first.length), ['schedule_list']);
  assert.deepEqual(third, second);
  const [listing] = toolResults(session.events, 'schedule_list');
  assert.equal(listing?.isError, false, listing?.content);
  assert.match(result.stdout, /"type":"tools\/loaded"/);

  // The next turn, in a new process (the session resumed from its log), keeps the tool loaded.
  const sessionId = sessionIdOf(result.stdout);
  const again = await runScripted(folders, 'anything else', { args: ['--session', sessionId] });
  assert.equal(again.code, 0, again.stderr);
  const [resumed] = sessions(folders.home);
  const latest = requestPrompts(resumed?.events ?? []).at(-1);
  assert.deepEqual(latest?.tools, second, 'the resumed turn offers the loaded schema too');
});

test('a direct call of a deferred tool that was not loaded runs and loads it; an unknown name gets the closest', async () => {
  const folders = scriptedFolders(model);
  const direct = await runScripted(folders, 'jobs', { json: true });
  assert.equal(direct.code, 0, direct.stderr);
  assert.match(direct.stdout, /jobs: You have no background jobs\./);
  const lines = ndjsonLines(direct.stdout);
  const loaded = lines.filter((line) => line.type === 'tools/loaded');
  assert.deepEqual(
    loaded.map((line) => line.data.names),
    [['job_list']],
  );
  const [session] = sessions(folders.home);
  const requests = requestPrompts(session?.events ?? []);
  assert.ok(!names(requests[0]?.tools ?? []).includes('job_list'));
  assert.ok(names(requests[1]?.tools ?? []).includes('job_list'));

  const typo = await runScripted(scriptedFolders(model), 'typo', { json: true });
  assert.equal(typo.code, 0, typo.stderr);
  const [refused] = toolResults(ndjsonLines(typo.stdout), 'load_tools');
  assert.equal(refused?.isError, true);
  assert.equal(refused?.errorCode, 'UNKNOWN_TOOL');
  assert.match(refused?.content ?? '', /no tool schedul_lst; the closest: schedule_list/);
  assert.ok(!typo.stdout.includes('"type":"tools/loaded"'), 'nothing was loaded');
});

test('config: tools.deferred false offers every tool in full; tools.alwaysLoad keeps named ones in full', async () => {
  const off = scriptedFolders(model);
  writeFileSync(join(off.home, 'config.yaml'), 'tools:\n  deferred: false\n');
  assert.equal((await runScripted(off, 'hi')).code, 0);
  const [offTools] = requestPrompts(sessions(off.home)[0]?.events ?? []).map((r) => r.tools);
  assert.ok(names(offTools ?? []).includes('schedule_list'));
  assert.ok(!names(offTools ?? []).includes('load_tools'), 'nothing to load: no load_tools');

  const kept = scriptedFolders(model);
  writeFileSync(join(kept.home, 'config.yaml'), 'tools:\n  alwaysLoad: [workflow, get_goal]\n');
  assert.equal((await runScripted(kept, 'hi')).code, 0);
  const [keptTools] = requestPrompts(sessions(kept.home)[0]?.events ?? []).map((r) => r.tools);
  assert.ok(names(keptTools ?? []).includes('workflow'));
  assert.ok(names(keptTools ?? []).includes('get_goal'));
  assert.ok(!names(keptTools ?? []).includes('create_goal'));
  assert.doesNotMatch(loadToolsOf(keptTools ?? []).description, /^- workflow:/m);

  const typo = scriptedFolders(model);
  writeFileSync(join(typo.home, 'config.yaml'), 'tools:\n  alwaysLoad: [workflw]\n');
  const refused = await runScripted(typo, 'hi');
  assert.notEqual(refused.code, 0);
  assert.match(
    refused.stderr,
    /tools\.alwaysLoad names workflw, which is no tool \(did you mean workflow\?\)/,
  );
});
