/**
 * Preloaded into a bin/loom process by tests (`NODE_OPTIONS=--import PATH`): requests to the
 * public DeepSeek API go to `$LOOM_TEST_DEEPSEEK_URL` on loopback instead, so a test can see that
 * DeepSeek was chosen. The providers send through node:https (src/llm/node-fetch.ts), so that is
 * where a request is turned round. Every other request is left alone; nothing here may reach the
 * network.
 */
import http from 'node:http';
import https from 'node:https';

const publicHost = 'api.deepseek.com';
const target = process.env.LOOM_TEST_DEEPSEEK_URL;
if (!target?.startsWith('http://127.0.0.1:')) {
  throw new Error('deepseek-on-loopback: LOOM_TEST_DEEPSEEK_URL must be a loopback URL');
}
const originalRequest = https.request;
https.request = (url, options, callback) => {
  if (!(url instanceof URL) || url.host !== publicHost)
    return originalRequest(url, options, callback);
  const local = new URL(`${target}${url.pathname}${url.search}`);
  return http.request(local, { ...options, agent: undefined }, callback);
};
