// Prints the interactive terminal's main views as text, the way the README shows them: bin/loom
// in a pseudo-terminal over the scripted model, its screen read from a headless xterm. Run after
// `npm run build`: node --import tsx scripts/tui-screens.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEYS, type ScreenRun, send, startScreen } from '../test/tui/pty-screen.js';

const base = mkdtempSync(join(tmpdir(), 'l-'));
const home = join(base, 'home');
const workspace = join(base, 'shop');
mkdirSync(home);
mkdirSync(workspace);
writeFileSync(join(workspace, 'price.ts'), 'export const price = (cents: number) => cents / 10;\n');

const WAIT = 'while [ ! -e release ]; do sleep 0.1; done; echo reviewed';
const script = [
  "phase('review');",
  "const notes = await parallel(['cart', 'price', 'tax', 'ship', 'user', 'auth'].map((area) => () => agent('review ' + area, { label: area })));",
  "phase('summarize');",
  'return notes.length;',
].join('\n');
const model = {
  rules: [
    {
      when: '^fix the price',
      steps: [
        {
          tools: [
            {
              name: 'edit_file',
              arguments: { path: 'price.ts', old_string: 'cents / 10', new_string: 'cents / 100' },
            },
          ],
        },
        {
          reply:
            'Fixed: `price` divided by **10**.\n\n```ts\nexport const price = (cents: number) => cents / 100;\n```',
        },
      ],
    },
    {
      when: '^run the tests',
      steps: [{ tools: [{ name: 'bash', arguments: { command: 'npm test' } }] }, { reply: 'done' }],
    },
    {
      when: '^review the shop',
      steps: [
        {
          tools: [
            {
              name: 'workflow',
              arguments: {
                meta: {
                  name: 'shop-review',
                  description: 'Reviews each area',
                  phases: [{ title: 'review' }, { title: 'summarize' }],
                },
                script,
              },
            },
          ],
        },
        { reply: 'Reviewed {{lastToolResult}}' },
      ],
    },
    {
      when: '^review ',
      steps: [{ tools: [{ name: 'bash', arguments: { command: WAIT } }] }, { reply: 'ok' }],
    },
  ],
  default: { reply: 'ok' },
};
writeFileSync(join(home, 'model.json'), JSON.stringify(model));
writeFileSync(
  join(home, 'config.yaml'),
  'workflow:\n  offerTool: always\n  maxConcurrentAgents: 6\npermissions:\n  - tool: bash\n    match: { command: "npm *" }\n    action: ask\n',
);

function show(title: string, screen: ScreenRun, lines: number): void {
  const text = screen.text().split('\n').slice(-lines).join('\n').replaceAll(base, '/tmp/demo');
  process.stdout.write(`--- ${title}\n${text}\n\n`);
}

const screen = startScreen(['--model', `scripted:${join(home, 'model.json')}`], {
  home,
  cwd: workspace,
  columns: 90,
  rows: 30,
});
try {
  await screen.waitFor('ask loom');
  await send(screen, 'fix the price');
  await screen.waitFor(/Fixed:[\s\S]*default mode/);
  show('a turn: an edit as a diff, the answer as Markdown', screen, 18);
  await send(screen, 'run the tests');
  await screen.waitFor(/Allow bash\?[\s\S]*default mode/);
  show('an ask rule', screen, 14);
  screen.type('n');
  await screen.waitFor('Why not?');
  screen.type(KEYS.enter);
  await screen.waitFor(/⊘ bash[\s\S]*default mode/);
  await send(screen, 'review the shop');
  await screen.waitFor('1 workflow ·');
  await send(screen, '/workflows');
  await screen.waitFor(/◌ #6 auth/);
  show('/workflows while the run works', screen, 18);
  writeFileSync(join(workspace, 'release'), '');
  await screen.waitFor(/shop-review completed[\s\S]*✓ #6 auth/);
  screen.type(KEYS.escape);
  // The view has closed (Esc typed together with the next key would read as Alt+key).
  await screen.waitFor(
    (text) => /Reviewed[\s\S]*default mode/.test(text) && !text.includes('esc back'),
  );
  screen.type(KEYS.ctrlD);
  await screen.exited;
  show('after ctrl+d', screen, 4);
} finally {
  screen.kill();
  rmSync(base, { recursive: true, force: true });
}
