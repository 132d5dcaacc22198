export const meta = {
  name: 'triage',
  description: 'Triage 160 issues: classify each, investigate the hard ones, then summarise them in a nested workflow.',
  phases: [{ title: 'classify' }, { title: 'investigate' }],
};
// With --model scripted:examples/workflows/triage.model.json some agents fail on purpose: this run
// made the README's run report screenshot (docs/run-report.png).
phase('classify');
const issues = Array.from({ length: 160 }, (_, index) => `issue-${index + 1}`);
const classes = await parallel(issues.map((id) => () => agent(`classify ${id}`, { label: `classify ${id}` })));
log(`classified ${classes.filter(Boolean).length} of ${issues.length}; the rest failed`);
phase('investigate');
const hard = issues.filter((_, index) => index % 6 === 0);
const findings = await parallel(hard.map((id) => () => agent(`investigate ${id}`, { label: `investigate ${id}` })));
log(`${findings.filter(Boolean).length} root causes found`);
const summary = await workflow('./triage-summary.js', { count: findings.filter(Boolean).length });
return { classified: classes.filter(Boolean).length, investigated: findings.filter(Boolean).length, summary };
