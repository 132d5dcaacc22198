/**
 * The one rule for the default model of every command that runs one (SPEC §3): `--model`, then
 * `$LOOM_MODEL`, then `model:` in config, then DeepSeek when its key is set. Commands reach it
 * through `buildRuntime`; children without a spec of their own use what it chose. It reads only
 * what it is given and never loads or contacts a model; `requireModelKey` refuses a choice whose
 * key variable is empty before anything runs.
 */
import { UserError } from '../base/errors.js';
import type { ModelRoute } from '../llm/model-spec.js';
import { defaultModelSpec, missingKeyVariable } from '../llm/providers.js';

/** Where the chosen spec came from. */
export type ModelSource = 'flag' | 'environment' | 'config' | 'deepseek-key';

export interface ModelChoice {
  spec: string;
  source: ModelSource;
}

export interface ModelChoiceInputs {
  /** The command's `--model` value, when it was given (an empty one is a mistake, not absent). */
  flag?: string;
  /** Read for `LOOM_MODEL` and `DEEPSEEK_API_KEY`. */
  env: NodeJS.ProcessEnv;
  /** `model:` from the merged config files. */
  configModel?: string;
}

export const MODEL_VARIABLE = 'LOOM_MODEL';

export const NO_MODEL_HELP = [
  'no model is configured. Choose one in any of these ways (the first that is set wins):',
  '  --model SPEC           on the command line, e.g. --model openai:gpt-4o-mini',
  `  ${MODEL_VARIABLE}=SPEC        in the environment`,
  '  model: SPEC            in $LOOM_HOME/config.yaml or .loom/config.yaml',
  '  DEEPSEEK_API_KEY=KEY   in the environment; deepseek:deepseek-chat is then the default',
  '(OPENAI_API_KEY and ANTHROPIC_API_KEY work with a spec such as openai:MODEL or anthropic:MODEL.)',
  'Or run offline with --model scripted:FILE (see examples/).',
].join('\n');

/** Throws a UserError (`MODEL_SPEC`) naming all four ways when none of them applies. */
export function chooseModel(inputs: ModelChoiceInputs): ModelChoice {
  if (inputs.flag !== undefined) return { spec: inputs.flag, source: 'flag' };
  const fromEnvironment = inputs.env[MODEL_VARIABLE];
  if (fromEnvironment !== undefined && fromEnvironment.trim().length > 0) {
    return { spec: fromEnvironment, source: 'environment' };
  }
  if (inputs.configModel !== undefined) return { spec: inputs.configModel, source: 'config' };
  const deepseek = defaultModelSpec(inputs.env);
  if (deepseek !== undefined) return { spec: deepseek, source: 'deepseek-key' };
  throw new UserError('MODEL_SPEC', NO_MODEL_HELP);
}

/** How an error message names where a spec came from. */
export function describeModelSource(source: ModelSource): string {
  switch (source) {
    case 'flag':
      return '--model';
    case 'environment':
      return `$${MODEL_VARIABLE}`;
    case 'config':
      return 'config `model:`';
    case 'deepseek-key':
      return 'the default for DEEPSEEK_API_KEY';
  }
}

/** A UserError about the chosen spec, restated to say where the spec came from. */
export function blameModelSource(choice: ModelChoice, error: unknown): unknown {
  if (!(error instanceof UserError)) return error;
  return new UserError(
    error.code,
    `the model from ${describeModelSource(choice.source)} is not usable: ${error.message}`,
    { cause: error },
  );
}

/**
 * Throws a UserError (`MISSING_CREDENTIAL`) naming the variable, the spec and where it came from
 * when the chosen model's key variable holds no key: the command could not start. Never reads
 * more of the variable than whether it is set.
 */
export function requireModelKey(
  choice: ModelChoice,
  options: { env: NodeJS.ProcessEnv; routes?: Record<string, ModelRoute> },
): void {
  const variable = missingKeyVariable(choice.spec, options);
  if (variable === undefined) return;
  throw new UserError(
    'MISSING_CREDENTIAL',
    `could not start: the model ${choice.spec.trim()} (from ${describeModelSource(choice.source)}) ` +
      `needs ${variable}, which is not set; export it, or choose another model with --model`,
  );
}
