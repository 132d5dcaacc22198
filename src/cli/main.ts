/**
 * The `loom` command line: parses arguments with commander and hands each command to its own
 * module. Exit codes are the public contract of SPEC §3; nothing here runs an agent itself.
 */
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { errorMessage } from '../core/errors.js';
import { registerRunCommand } from './run-command.js';
import { registerSessionsCommand } from './sessions-command.js';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

const EXAMPLES = `
Examples:
  $ loom run "add a test for the parser"             uses DEEPSEEK_API_KEY by default
  $ loom run --model openai:gpt-4o-mini "explain src/"
  $ echo "fix the build" | loom run --json            NDJSON session events on stdout
  $ loom run --model scripted:examples/demo/model.json --cwd /tmp/demo "tidy the greeting"
  $ loom run --session 20261130-001500-k3x9q2 "now run the tests"
  $ loom sessions list
  $ loom sessions show 20261130-001500-k3x9q2

Config: $LOOM_HOME/config.yaml and ./.loom/config.yaml (LOOM_HOME defaults to ~/.loom).`;

export function buildProgram(): Command {
  const program = new Command('loom')
    .description('An agent harness for multi-agent orchestration')
    .version(version, '-v, --version')
    .showHelpAfterError()
    .exitOverride()
    .addHelpText('after', EXAMPLES);
  registerRunCommand(program);
  registerSessionsCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exit(error.exitCode === 0 ? 0 : 2);
    }
    process.stderr.write(`loom: ${errorMessage(error)}\n`);
    process.exit(1);
  }
}
