/**
 * An agent-type service for tests of its consumers (a workflow's `agentType`), standing in for
 * the one `src/project/` installs: the given types, sorted by name, found by exact name.
 */
import type { AgentType, AgentTypes } from '../../src/project/agent-types-contract.js';

export function fakeAgentTypes(types: Array<Partial<AgentType> & { name: string }>): AgentTypes {
  const full = types.map(
    (type): AgentType => ({
      description: `the ${type.name}`,
      prompt: '',
      origin: 'builtin',
      ...type,
    }),
  );
  const service = {
    list: () => [...full].sort((first, second) => first.name.localeCompare(second.name)),
    find: (name: string) => full.find((type) => type.name === name),
    // Files the service could not read: none here.
    problems: () => [],
  };
  return service;
}
