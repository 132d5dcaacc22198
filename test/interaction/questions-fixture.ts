/**
 * A runtime with `ask_user_question` over scripted models and a chosen answerer, for question
 * tests: the user-questions service keyed on the runtime's own record of each session, as
 * build-runtime wires it. Helpers read what a session logged.
 */
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent, SessionEventMap } from '../../src/core/session-events.js';
import { installQuestionTool } from '../../src/interaction/ask-user-question.js';
import {
  type Question,
  rootOnlyQuestions,
  type UserAnswerer,
  userQuestionsKey,
} from '../../src/interaction/user-questions.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export function questionRuntime(script: ScriptedModelFile, answerer: UserAnswerer): AgentRuntime {
  const home = temporaryFolder('loom-questions-');
  const model = createScriptedModel(script);
  const runtime = runtimeOver(model, home);
  runtime.root.provide(
    userQuestionsKey,
    rootOnlyQuestions((sessionId) => runtime.find(sessionId)?.log.header, answerer),
  );
  installQuestionTool(runtime);
  return runtime;
}

export const databaseQuestion: Question = {
  question: 'Which database should the service use?',
  header: 'Database',
  options: [{ label: 'Postgres', description: 'the team knows it' }, { label: 'SQLite' }],
};

/** On `ask`: one `ask_user_question` call with `args`, then a reply quoting its result. */
export function askingScript(args: Record<string, unknown>): ScriptedModelFile {
  return {
    rules: [
      callsThenReply(
        'ask',
        [{ name: 'ask_user_question', arguments: args }],
        'got: {{lastToolResult}}',
      ),
    ],
  };
}

export function eventsOf<Type extends keyof SessionEventMap>(
  events: readonly SessionEvent[],
  type: Type,
): SessionEventMap[Type][] {
  return events.flatMap((event) =>
    event.type === type ? [(event as SessionEvent<Type>).data] : [],
  );
}
