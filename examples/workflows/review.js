// A code review as a workflow, in the shape Claude Code writes them: the meta header is data
// (read statically, never run), the body below it is the orchestration script. Run it offline:
//   bin/loom workflow run examples/workflows/review.js --model scripted:examples/workflows/review.model.json
// With a real model, pass the folder to review: --args '{"target": "src/"}'.
export const meta = {
  name: 'review',
  description: 'Review the files of a folder: list them, audit each one, verify what the audits found.',
  whenToUse: 'When a change touches several files and each one needs a careful, independent look.',
  phases: [
    { title: 'list', detail: 'find the files worth reviewing' },
    { title: 'audit', detail: 'audit each file, then summarise its findings in one line' },
    { title: 'verify', detail: 'check every finding independently before reporting it' },
  ],
};

const target = args.target ?? 'src/';

phase('list');
const listing = await agent(`List the source files to review under ${target}`, {
  label: 'list files',
  schema: {
    type: 'object',
    properties: { files: { type: 'array', items: { type: 'string' } } },
    required: ['files'],
  },
});
const files = listing ? listing.files : [];
log(`found ${files.length} files under ${target}`);

phase('audit');
const summaries = await pipeline(
  files,
  (file) =>
    agent(`Audit ${file} for bugs, unchecked errors and risky code. Cite line numbers.`, {
      label: `audit ${file}`,
    }),
  (audit, file) =>
    audit === null
      ? null
      : agent(`Summarise the audit of ${file} in one line:\n${audit}`, {
          label: `summarise ${file}`,
        }),
);
const unaudited = files.filter((_, index) => summaries[index] === null);
if (unaudited.length > 0) log(`could not audit: ${unaudited.join(', ')}`);

const reported = files
  .map((file, index) => ({ file, summary: summaries[index] }))
  .filter((entry) => entry.summary && !/^no issues/i.test(entry.summary));
log(`${reported.length} of ${files.length} files have findings`);

phase('verify');
const verdicts = await parallel(
  reported.map(
    (entry) => () =>
      agent(
        `Verify this finding in ${entry.file}. Answer CONFIRMED or REJECTED with a reason:\n${entry.summary}`,
        { label: `verify ${entry.file}` },
      ),
  ),
);
const findings = reported.map((entry, index) => ({
  file: entry.file,
  finding: entry.summary,
  verdict: verdicts[index] ?? 'unverified',
}));
const confirmed = findings.filter((entry) => entry.verdict.startsWith('CONFIRMED'));
log(`${confirmed.length} confirmed, ${findings.length - confirmed.length} rejected or unverified`);

return {
  target,
  listed: files.length,
  reviewed: files.length - unaudited.length,
  unaudited,
  confirmed: confirmed.map((entry) => ({ file: entry.file, finding: entry.finding })),
  rejected: findings
    .filter((entry) => !entry.verdict.startsWith('CONFIRMED'))
    .map((entry) => ({ file: entry.file, verdict: entry.verdict })),
};
