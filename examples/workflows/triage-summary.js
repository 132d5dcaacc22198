export const meta = { name: 'triage-summary', description: 'Draft and check a summary.' };
phase('draft');
const parts = await parallel(['bugs', 'features', 'docs', 'infra'].map((area) => () => agent(`draft ${area}`, { label: `draft ${area}` })));
phase('check');
const checked = await agent('check the summary', { label: 'check the summary' });
log('summary checked');
return { parts: parts.filter(Boolean).length, checked };
