/**
 * Who answers the agent's questions in `loom run`: the answers file of `--answers` (read and
 * checked now, so a bad file fails before anything runs), else a terminal prompt when standard
 * input and standard error are both a TTY, else nobody (`NO_USER` at once). It never prompts
 * on standard output, which carries the answer.
 */
import { answersFileAnswerer, readAnswersFile } from '../interaction/answers-file.js';
import { terminalAnswerer } from '../interaction/terminal-answerer.js';
import { noUser, type UserAnswerer } from '../interaction/user-questions.js';

export function runAnswerer(options: { answers?: string }): UserAnswerer {
  if (options.answers !== undefined) {
    return answersFileAnswerer(readAnswersFile(options.answers), options.answers);
  }
  if (process.stdin.isTTY && process.stderr.isTTY) {
    // Ctrl-C in a prompt is Ctrl-C in the run: the run's own SIGINT handling stops the turn.
    return terminalAnswerer({ input: process.stdin, output: process.stderr }, () =>
      process.kill(process.pid, 'SIGINT'),
    );
  }
  return noUser;
}
