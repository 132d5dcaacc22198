/**
 * `/init [--force]`: a turn of this session whose prompt asks the agent to explore the workspace
 * and write its AGENTS.md (the prompt of `loom init`). It refuses, as a notice, while a turn runs
 * and when AGENTS.md exists without `--force`; once the turn ends it says whether the file was
 * written, and that sessions read it as they start.
 */
import { INIT_FILE, initFileText, initPrompt, initRefusal } from '../../project/init-prompt.js';
import type { SlashCommand } from './contract.js';

export const initCommand: SlashCommand = {
  name: 'init',
  usage: '[--force]',
  description: 'explore the workspace and write its AGENTS.md (--force replaces one)',
  async run(args, { session, store }) {
    const warn = (text: string) => store.add({ kind: 'notice', tone: 'warning', text });
    if (args !== '' && args !== '--force') return warn(`usage: /init [--force] (not ${args})`);
    const handle = session.current;
    if (handle.agent.status !== 'idle') {
      return warn('/init waits for an idle session: a turn is running (esc interrupts it)');
    }
    const workspace = session.setup.runtime.cwd;
    const refusal = initRefusal(workspace, {
      force: args === '--force',
      forceHint: '/init --force',
    });
    if (refusal !== undefined) return warn(refusal);
    const before = initFileText(workspace);
    const outcome = await handle.agent.prompt(initPrompt({ replacing: before !== undefined }));
    if (session.current !== handle || outcome.reason !== 'completed') return;
    const after = initFileText(workspace);
    if (after === undefined || after === before) {
      warn(`the agent ended without ${before === undefined ? 'writing' : 'changing'} ${INIT_FILE}`);
      return;
    }
    store.add({
      kind: 'notice',
      tone: 'info',
      text: `wrote ${INIT_FILE}; sessions read it as they start (/new starts one)`,
    });
  },
};
