/**
 * Config `context:` with its defaults filled in (DEFAULT_CONTEXT_SETTINGS): what the context
 * accounting and compaction read. Validation is the config schema's; this only fills.
 */
import { type ContextSettings, DEFAULT_CONTEXT_SETTINGS } from './contract.js';

export function contextSettings(config: Partial<ContextSettings> | undefined): ContextSettings {
  return {
    compactAt: config?.compactAt ?? DEFAULT_CONTEXT_SETTINGS.compactAt,
    warnAt: config?.warnAt ?? DEFAULT_CONTEXT_SETTINGS.warnAt,
    keepSteps: config?.keepSteps ?? DEFAULT_CONTEXT_SETTINGS.keepSteps,
  };
}
