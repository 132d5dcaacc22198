/**
 * Preloaded into a bin/loom process by tests (`NODE_OPTIONS=--import PATH`): requests to the
 * public DeepSeek API go to `$LOOM_TEST_DEEPSEEK_URL` on loopback instead, so a test can see that
 * DeepSeek was chosen. Every other request is left alone; nothing here may reach the network.
 */
const publicApi = 'https://api.deepseek.com';
const target = process.env.LOOM_TEST_DEEPSEEK_URL;
if (!target?.startsWith('http://127.0.0.1:')) {
  throw new Error('deepseek-on-loopback: LOOM_TEST_DEEPSEEK_URL must be a loopback URL');
}
const originalFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!url.startsWith(publicApi)) return originalFetch(input, init);
  return originalFetch(`${target}${url.slice(publicApi.length)}`, init);
};
