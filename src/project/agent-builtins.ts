/**
 * The agent types Loom has without any file, named as Claude Code names them so its scripts and
 * prompts work unchanged: `general-purpose` (the default child: Loom's own persona, every tool),
 * `Explore` and `Plan` (read-only). A file of the same name overrides one. `bash` is left out
 * of the read-only types: Loom's `bash` can write anywhere the workspace allows, so a read-only
 * promise would rest on the model's good behaviour alone.
 */
import { type AgentType, DEFAULT_AGENT_TYPE } from './agent-types-contract.js';

/** The tools of the read-only types: they read and search files and change nothing. */
export const READ_ONLY_TOOLS: readonly string[] = ['read_file', 'glob', 'grep'];

const explorePrompt = [
  'You are an explorer: you find things in a codebase quickly and report them precisely.',
  'You can only read and search (read_file, glob, grep); you cannot change any file or run commands.',
  'Search broadly first (glob for file names, grep for identifiers and text), then read the few files',
  'that matter. Report what you found with file paths and line numbers, quote the lines that answer',
  'the question, and say plainly what you looked for and did not find.',
].join('\n');

const planPrompt = [
  'You are a planner: you study a codebase and answer with a plan for the task you are given.',
  'You can only read and search (read_file, glob, grep); you cannot change any file or run commands,',
  'and you do not carry the plan out.',
  'Read the code the task touches before you plan. Answer with: the approach in a few sentences, the',
  'numbered steps (each naming the files and functions to change), how to check the result (tests to',
  'add or run), and the risks or open questions. Keep it concrete and short.',
].join('\n');

export const BUILTIN_AGENT_TYPES: readonly AgentType[] = [
  {
    name: DEFAULT_AGENT_TYPE,
    description:
      'The default: an agent with Loom’s own persona and every tool, for research, a focused change or any self-contained task.',
    prompt: '',
    origin: 'builtin',
  },
  {
    name: 'Explore',
    description:
      'Read-only and quick: finds files, code and facts in the codebase (read_file, glob, grep) and reports them with paths and lines.',
    tools: [...READ_ONLY_TOOLS],
    prompt: explorePrompt,
    origin: 'builtin',
  },
  {
    name: 'Plan',
    description:
      'Read-only: studies the code a task touches and answers with an implementation plan (steps, files, tests, risks); changes nothing.',
    tools: [...READ_ONLY_TOOLS],
    prompt: planPrompt,
    origin: 'builtin',
  },
];
