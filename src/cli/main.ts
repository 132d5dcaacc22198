/**
 * The `loom` command line: declares the commands with commander and loads each command's module
 * only when it runs, so `loom --version` starts fast. Exit codes are the public contract of
 * SPEC §3: usage mistakes exit 2, failures 1. Every path ends through `exitAfterDrain`, so no
 * output is cut short, and a closed stdout ends a command quietly.
 */
import { Command, CommanderError, Option } from 'commander';
import { loomVersion as version } from '../core/version.js';
import { installOutputRedaction } from './output-redaction.js';
import { exitAfterDrain, guardStandardOutput } from './standard-output.js';
import { reportUsageErrorsOnOneLine, unknownCommandLine } from './usage-errors.js';

const EXAMPLES = `
Examples (from the repository root; ID is a session id from \`loom sessions list\`):
  $ loom                                             # the interactive session (a terminal)
  $ loom --continue                                  # reopen this folder's latest session
  $ loom run "add a test for the parser"             # uses DEEPSEEK_API_KEY by default
  $ loom run --model openai:gpt-4o-mini "explain src/"
  $ echo "fix the build" | loom run --json            # NDJSON session events on stdout
  $ cp -R examples/demo/workspace/. /tmp/loom-demo    # a scratch folder for the next one
  $ loom run --model scripted:examples/demo/model.json --cwd /tmp/loom-demo "tidy the greeting"
  $ loom sessions list --all                         # every workspace's; without --all: this folder's
  $ loom run --session ID --cwd /tmp/loom-demo "now run the tests"   # continue it in its workspace
  $ loom workspaces list
  $ loom sessions show ID
  $ loom rewind --session ID --to 2                  # files and conversation as turn 2 began
  $ loom sessions diff ID                            # the paths the session changed: A/M/D path
  $ loom compact --session ID                        # prune old tool results (recall brings any back)
  $ loom compact --session ID --instructions "keep the API decisions"   # summarize earlier turns
  $ loom workflow run examples/workflows/review.js --model scripted:examples/workflows/review.model.json
  $ loom workflow check examples/workflows/review.js --meta '{"name":"x","description":"y"}'
  $ loom workflow list                               # saved: .loom/workflows/, $LOOM_HOME/workflows/
  $ loom acp                                         # serve an editor over ACP on stdio
  $ loom mcp list                                    # MCP servers: status and tools
  $ loom models gpt-4o                               # known models: window, prices, capabilities

Config: $LOOM_HOME/config.yaml and ./.loom/config.yaml (LOOM_HOME defaults to ~/.loom).`;

/** Every command that runs a model chooses it the same way (src/cli/choose-model.ts). */
const MODEL_DEFAULT =
  '(default: $LOOM_MODEL, then `model:` in config, then deepseek:deepseek-chat when DEEPSEEK_API_KEY is set)';

export function buildProgram(): Command {
  const program = new Command('loom')
    .description('An agent harness for multi-agent orchestration')
    .version(version, '-v, --version')
    .exitOverride()
    .addHelpText('after', EXAMPLES)
    // Options of `loom` itself (the interactive session) are read before a command only.
    .enablePositionalOptions()
    .option('--resume <id>', 'reopen this session in the interactive terminal')
    .option('--continue', "reopen this workspace's latest session in the interactive terminal")
    .option('--model <spec>', `the model of the interactive session ${MODEL_DEFAULT}`)
    .option('--cwd <dir>', 'the workspace folder (default: the current folder)')
    .allowExcessArguments()
    .action(async (options: import('../tui/tui-options.js').TuiOptions, command: Command) => {
      if (command.args.length > 0) {
        process.stderr.write(unknownCommandLine(command, command.args[0] ?? ''));
        return exitAfterDrain(2);
      }
      const { tuiCommand } = await import('../tui/tui-command.js');
      await exitAfterDrain(await tuiCommand(options));
    });

  program
    .command('run')
    .description('run one headless turn; the prompt comes from the argument or standard input')
    .argument('[prompt]', 'what the agent should do')
    .option(
      '--model <spec>',
      `provider:model, e.g. deepseek:deepseek-chat or scripted:model.json ${MODEL_DEFAULT}`,
    )
    .option('--session <id>', 'continue this session with its history')
    .option('--json', 'print the session events as NDJSON on stdout')
    .option(
      '--cwd <dir>',
      'the workspace folder (default: the current folder; --session keeps its own)',
    )
    .option('--max-steps <n>', 'model requests a turn may take (default 50)')
    .option(
      '--image <file>',
      'attach an image (PNG, JPEG, GIF or WebP) to the prompt; repeatable',
      (file: string, files: string[] = []) => [...files, file],
    )
    .option(
      '--goal <objective>',
      'create this goal and run its rounds until it is complete or blocked; a prompt is then an optional first message',
    )
    .option('--max-rounds <n>', 'with --goal: the rounds the goal may start (default 20)')
    .option(
      '--answers <file>',
      'answer ask_user_question from FILE: a JSON object mapping a question\'s header or text to a label, a list of labels or free text ("plan": "approve" or feedback reviews a plan)',
    )
    .option('--plan', 'start in plan mode: explore read-only and end on a plan for review')
    .option('--approve-plan', 'approve the plan the model presents and let the turn go on')
    .addOption(
      new Option(
        '--tools-mode <mode>',
        'how agents see their tools: native (each tool), code (one run_code program over a tool SDK) or both (default: config tools.presentation, else native)',
      ).choices(['native', 'code', 'both']),
    )
    .action(async (prompt: string | undefined, options: import('./run-command.js').RunOptions) => {
      const { runCommand } = await import('./run-command.js');
      await exitAfterDrain(await runCommand(prompt, options));
    });

  program
    .command('init')
    .description("write the workspace's AGENTS.md in one agent turn")
    .option('--force', 'replace an existing AGENTS.md (the agent reads it first)')
    .option('--model <spec>', `provider:model, e.g. scripted:model.json ${MODEL_DEFAULT}`)
    .option('--cwd <dir>', 'the workspace folder (default: the current folder)')
    .action(async (options: import('./init-command.js').InitOptions) => {
      const { initCommand } = await import('./init-command.js');
      await exitAfterDrain(await initCommand(options));
    });

  const sessions = program.command('sessions').description('list and show stored sessions');
  sessions
    .command('list')
    .description("list the current workspace's sessions: id, created, first prompt, turns")
    .option('--json', 'one JSON object per session')
    .option('--all', 'the sessions of every workspace, not only the current one')
    .option('--children', 'also list the sessions of subagents, each under its parent')
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .action(async (options: import('./sessions-command.js').ListSessionsOptions) => {
      const { listSessions } = await import('./sessions-command.js');
      listSessions(options);
      await exitAfterDrain(0);
    });
  sessions
    .command('show')
    .description("print one session's events")
    .argument('<id>', 'the session id')
    .option('--json', 'the raw event lines')
    .option('--chunks', 'include streamed assistant chunks')
    .action(async (id: string, options: { json?: boolean; chunks?: boolean }) => {
      const { showSession } = await import('./sessions-command.js');
      showSession(id, options);
      await exitAfterDrain(0);
    });

  sessions
    .command('diff')
    .description(
      'list each path the session changed in its workspace since it began (A, M or D and the path)',
    )
    .argument('<id>', 'the session id')
    .action(async (id: string) => {
      const { sessionDiffCommand } = await import('./session-diff-command.js');
      await exitAfterDrain(await sessionDiffCommand(id));
    });
  program
    .command('rewind')
    .description(
      "restore a session's files and/or conversation to the state as turn TURN began (the conversation part prints the new session's id)",
    )
    .requiredOption('--session <id>', 'the session id')
    .requiredOption('--to <turn>', 'the turn: a number counting from 1, or its id turn-N')
    .option('--files', "only the workspace's files")
    .option('--conversation', 'only the conversation: a new session forked before that turn')
    .option('--both', 'files and conversation (the default)')
    .action(async (options: import('./rewind-command.js').RewindOptions) => {
      const { rewindCommand } = await import('./rewind-command.js');
      await exitAfterDrain(await rewindCommand(options));
    });

  program
    .command('workspaces')
    .description('list the workspaces sessions were made or opened in')
    .command('list')
    .description('list workspaces: id, name, sessions, last used, path')
    .option('--json', 'one JSON object per workspace')
    .action(async (options: { json?: boolean }) => {
      const { listWorkspaces } = await import('./workspaces-command.js');
      listWorkspaces(options);
      await exitAfterDrain(0);
    });

  program
    .command('agents')
    .description('the agent types subagent {agent_type} can name')
    .command('list')
    .description(
      'list the agent types: built-in, .loom/agents, .claude/agents and $LOOM_HOME/agents (name, origin, description, path)',
    )
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .option('--json', 'one JSON object per agent type')
    .action(async (options: import('./agents-command.js').AgentsListOptions) => {
      const { agentsListCommand } = await import('./agents-command.js');
      await exitAfterDrain(agentsListCommand(options));
    });

  const workflow = program
    .command('workflow')
    .description('workflows: list, run, check; kept runs: runs, report');
  workflow
    .command('list')
    .description(
      'list the saved workflows: .loom/workflows/NAME.js (project) and $LOOM_HOME/workflows/NAME.js (personal)',
    )
    .option('--json', 'one JSON object per saved workflow')
    .action(async (options: import('./workflow-list-command.js').WorkflowListOptions) => {
      const { workflowListCommand } = await import('./workflow-list-command.js');
      await exitAfterDrain(workflowListCommand(options));
    });
  workflow
    .command('run')
    .description('run a workflow script; live progress on stderr')
    .argument(
      '[workflow]',
      'a script FILE (a Claude Code `export const meta = {...}` header is read as meta), else a saved workflow NAME; with --resume, default the kept script',
    )
    .option(
      '--meta <json|file>',
      'the meta block as JSON or a JSON file (default: the file header)',
    )
    .option('--args <json|file>', 'a JSON object (or a JSON file) the script reads as `args`')
    .option(
      '--resume <runId>',
      'run a kept run again: calls its journal holds are answered without a model request',
    )
    .option(
      '--model <spec>',
      `the default model of the agents, e.g. scripted:model.json ${MODEL_DEFAULT}`,
    )
    .option(
      '--provider <name>',
      'the subagent provider of the agents: spawn (default), acp (each a `loom acp` process) or one of subagents.providers',
    )
    .option('--max-concurrent <n>', 'agents running at once (1-256, default 8)')
    .option('--max-agents <n>', 'agents the run may start (default 1000)')
    .option(
      '--budget-tokens <n>',
      'stop the run (BUDGET_EXHAUSTED) once its agents have used N input + output tokens',
    )
    .option('--json', 'print one JSON result object on stdout')
    .option('--events <file>', 'write the workflow/* events to FILE as NDJSON')
    .option(
      '--report <file>',
      'when the run ends (completed, error or cancelled), write its HTML report to FILE',
    )
    .action(
      async (
        target: string | undefined,
        options: import('./workflow-options.js').WorkflowRunOptions,
      ) => {
        const { workflowRunCommand } = await import('./workflow-command.js');
        await exitAfterDrain(await workflowRunCommand(target, options));
      },
    );
  workflow
    .command('check')
    .description("validate a workflow script's meta and syntax without running it")
    .argument('[workflow]', 'a script FILE, else a saved workflow NAME')
    .option(
      '--meta <json|file>',
      'the meta block as JSON or a JSON file (default: the file header)',
    )
    .action(
      async (
        target: string | undefined,
        options: import('./workflow-options.js').WorkflowCheckOptions,
      ) => {
        const { workflowCheckCommand } = await import('./workflow-command.js');
        await exitAfterDrain(workflowCheckCommand(target, options));
      },
    );
  workflow
    .command('runs')
    .description('list the kept workflow runs: status, agents, tokens (newest first)')
    .option('--json', 'one JSON object per run')
    .action(async (options: import('./workflow-runs-command.js').WorkflowRunsOptions) => {
      const { workflowRunsCommand } = await import('./workflow-runs-command.js');
      await exitAfterDrain(workflowRunsCommand(options));
    });
  workflow
    .command('report')
    .description(
      'write a kept run as one self-contained HTML file: timeline, agents, failures, logs, value',
    )
    .argument('<runId>', 'the run id (loom workflow runs lists them)')
    .option('-o, --output <file>', 'where to write it (default: ./RUN_ID.html; - for stdout)')
    .action(
      async (
        runId: string,
        options: import('./workflow-report-command.js').WorkflowReportOptions,
      ) => {
        const { workflowReportCommand } = await import('./workflow-report-command.js');
        await exitAfterDrain(workflowReportCommand(runId, options));
      },
    );
  const goal = program
    .command('goal')
    .description("show, pause, clear or resume a session's persistent goal");
  goal
    .command('show')
    .description('print the goal and its history (works while another process runs it)')
    .requiredOption('--session <id>', 'the session id')
    .option('--json', 'one JSON object: {sessionId, goal, history}')
    .action(async (options: import('./goal-command.js').GoalShowOptions) => {
      const { goalShowCommand } = await import('./goal-command.js');
      await exitAfterDrain(goalShowCommand(options));
    });
  for (const action of ['pause', 'clear'] as const) {
    goal
      .command(action)
      .description(`${action} the goal, as the user`)
      .requiredOption('--session <id>', 'the session id')
      .action(async (options: import('./goal-command.js').GoalChangeOptions) => {
        const { goalChangeCommand } = await import('./goal-command.js');
        await exitAfterDrain(goalChangeCommand(action, options));
      });
  }
  goal
    .command('resume')
    .description('resume the goal (paused or blocked), arm it and run its rounds until it settles')
    .requiredOption('--session <id>', 'the session id')
    .option('--max-rounds <n>', "the goal's new total round cap")
    .option('--cwd <dir>', "the session's workspace, when running from another folder")
    .option('--model <spec>', 'provider:model, e.g. deepseek:deepseek-chat or scripted:model.json')
    .option('--json', 'print the session events as NDJSON on stdout')
    .action(async (options: import('./goal-command.js').GoalResumeOptions) => {
      const { goalResumeCommand } = await import('./goal-command.js');
      await exitAfterDrain(await goalResumeCommand(options));
    });
  program
    .command('compact')
    .description(
      "compact a session's context now: prune old tool results, or with --instructions summarize earlier turns (the log keeps everything)",
    )
    .requiredOption('--session <id>', 'the session id')
    .option('--instructions <text>', 'summarize all but the last steps, focused as this asks')
    .option('--model <spec>', "the model that writes the summary (default: the session's)")
    .action(async (options: import('./compact-command.js').CompactOptions) => {
      const { compactCommand } = await import('./compact-command.js');
      await exitAfterDrain(await compactCommand(options));
    });
  const mcp = program.command('mcp').description('the MCP servers of config and .mcp.json');
  mcp
    .command('list')
    .description('start each MCP server, print its status and tools, and stop it')
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .option('--json', 'one JSON object per server')
    .action(async (options: import('./mcp-command.js').McpListOptions) => {
      const { mcpListCommand } = await import('./mcp-command.js');
      await exitAfterDrain(await mcpListCommand(options));
    });
  mcp
    .command('login')
    .description(
      'log in to an HTTP MCP server with OAuth: print the URL to open, wait for the redirect, store the tokens in $LOOM_HOME/mcp-auth/',
    )
    .argument('<name>', 'the server (mcp.servers.NAME or .mcp.json)')
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .option('--timeout-ms <ms>', 'how long to wait for the redirect (default 300000)')
    .action(async (name: string, options: import('./mcp-login-command.js').McpLoginOptions) => {
      const { mcpLoginCommand } = await import('./mcp-login-command.js');
      await exitAfterDrain(await mcpLoginCommand(name, options));
    });
  mcp
    .command('logout')
    .description("remove an MCP server's stored OAuth login")
    .argument('<name>', 'the server')
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .action(async (name: string, options: import('./mcp-login-command.js').McpLogoutOptions) => {
      const { mcpLogoutCommand } = await import('./mcp-login-command.js');
      await exitAfterDrain(await mcpLogoutCommand(name, options));
    });
  const worker = program
    .command('worker')
    .description(
      "run the children a queue provider queues, in this machine's checkout, until SIGINT or SIGTERM",
    )
    .option('--provider <name>', 'the queue provider of config (subagents.providers.NAME)')
    .option('--concurrency <n>', 'children running at once (1-256, default 1)')
    .option('--cwd <dir>', 'the checkout the children work in (default: the current folder)')
    .option('--any-revision', "run children queued at another revision than the checkout's")
    .option('--model <spec>', `the model of children whose job names none ${MODEL_DEFAULT}`)
    .action(async (options: import('./worker-command.js').WorkerOptions) => {
      const { workerCommand } = await import('./worker-command.js');
      await exitAfterDrain(await workerCommand(options));
    });
  worker
    .command('status')
    .description("a queue provider's queue: depth, connected workers and running children")
    .option('--provider <name>', 'the queue provider of config (subagents.providers.NAME)')
    .option('--cwd <dir>', 'the workspace whose config is read (default: the current folder)')
    .option('--json', 'one JSON object: {queue, counts, workers, running}')
    .action(async (options: import('./worker-command.js').WorkerStatusOptions) => {
      const { workerStatusCommand } = await import('./worker-command.js');
      await exitAfterDrain(await workerStatusCommand(options));
    });
  program
    .command('models')
    .description(
      'list the models Loom knows: context window, output limit, prices per million tokens, capabilities',
    )
    // `[spec]`, not `[filter]`: a longer term widens the command column of `loom --help` past 80.
    .argument(
      '[spec]',
      'only the specs containing this text, in any case (a whole spec is looked up)',
    )
    .option('--json', 'one JSON array of the models')
    .option('--cwd <dir>', 'the workspace whose config is read (default: the current folder)')
    .action(
      async (filter: string | undefined, options: import('./models-command.js').ModelsOptions) => {
        const { modelsCommand } = await import('./models-command.js');
        await exitAfterDrain(modelsCommand(filter, options));
      },
    );
  program
    .command('acp')
    .description('serve the Agent Client Protocol on stdio, for editors and out-of-process agents')
    .option('--model <spec>', `the model of every session ${MODEL_DEFAULT}`)
    .option(
      '--cwd <dir>',
      "the folder whose .loom/config.yaml is read at start, and the default of a session's cwd (default: the current folder)",
    )
    .action(async (options: import('./acp-command.js').AcpOptions) => {
      const { acpCommand } = await import('./acp-command.js');
      await exitAfterDrain(await acpCommand(options));
    });
  program
    .command('help')
    .description('show the help of loom or of a command (the same text as loom COMMAND --help)')
    .argument('[command...]', 'the command, e.g. run or workflow run')
    .action(async (names: string[]) => {
      let target: Command = program;
      for (const name of names) {
        const next = target.commands.find((command) => command.name() === name);
        if (!next) {
          process.stderr.write(unknownCommandLine(target, name));
          return exitAfterDrain(2);
        }
        target = next;
      }
      target.outputHelp();
      await exitAfterDrain(0);
    });
  reportUsageErrorsOnOneLine(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  guardStandardOutput();
  installOutputRedaction();
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) await exitAfterDrain(error.exitCode === 0 ? 0 : 2);
    const message = error instanceof Error ? error.message : String(error);
    const { credentialValues, redactCredentials } = await import('../base/credential-redaction.js');
    process.stderr.write(`loom: ${redactCredentials(message, credentialValues(process.env))}\n`);
    await exitAfterDrain(1);
  }
}
