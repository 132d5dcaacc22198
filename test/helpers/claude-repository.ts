/**
 * The pieces of a repository prepared for Claude Code that skills and custom commands read:
 * `.claude/commands/fix.md` (description, argument-hint, allowed-tools, `$ARGUMENTS`) and the
 * skill `.claude/skills/release/` with a file beside its SKILL.md. Data only; write it with
 * `writeTree`.
 */
export const CLAUDE_COMMAND_AND_SKILL: Readonly<Record<string, string>> = {
  '.claude/commands/fix.md':
    '---\ndescription: Fix a GitHub issue\nargument-hint: [issue-number]\nallowed-tools: Read, Skill, Bash(git status:*)\n---\nFix issue #$ARGUMENTS following our release rules.\n',
  '.claude/skills/release/SKILL.md':
    '---\nname: release\ndescription: How this project cuts a release; use it for any release or fix that ships\n---\n# Release\nBump the version in VERSION, tag it vX.Y.Z, push the tag.\n',
  '.claude/skills/release/checklist.md': '- tests pass\n',
};
