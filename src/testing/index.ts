/**
 * `loom/testing`: the public test kit. The scripted model answers model requests from rules so
 * workflows and agents run offline; the invariant checker proves an event stream is well formed.
 * Tests of Loom itself use exactly what users get. The scripted model lives in src/llm, beside the
 * seam it implements; it is re-exported here.
 */

export type {
  ScriptedAnswerer,
  ScriptedCall,
  UnusedScriptedRule,
} from '../llm/scripted-calls.js';
export {
  createScriptedModel,
  type ScriptedModelClient,
  type ScriptedModelOptions,
} from '../llm/scripted-model.js';
export {
  loadScriptedModel,
  parseScriptedModel,
  type ScriptedModelFile,
  type ScriptedResponse,
  type ScriptedResponseOptions,
  type ScriptedRule,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedUsage,
  type ValidScriptedModel,
  validateScriptedModel,
} from '../llm/scripted-rules.js';
export {
  assertSessionInvariants,
  checkPairs,
  checkSessionInvariants,
  type PairRule,
} from './invariants.js';
