import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  credentialForms,
  credentialValues,
  redactCredentials,
  redactedMarker,
} from '../../src/llm/credential-redaction.js';

const key = 'sk-live/Q7+x2f9c41d07a5b4e38b6a1=';
const base64 = (text: string) => Buffer.from(text).toString('base64');
const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** Every base64 run of `text`, decoded: the key must not come back out of any of them. */
function decodesToKey(text: string): boolean {
  return [...text.matchAll(/[A-Za-z0-9+/_-]{8,}={0,2}/g)].some((match) =>
    Buffer.from(match[0], 'base64').toString('latin1').includes(key),
  );
}

describe('redactCredentials', () => {
  test('the value as set and as sent (trimmed) are both removed', () => {
    const asSet = ` ${key} \n`;
    assert.equal(
      redactCredentials(`set "${asSet}" sent "${key}"`, [asSet]),
      `set "${redactedMarker}" sent "${redactedMarker}"`,
    );
  });

  test('base64 of the key and of USER:key for users of every length is removed', () => {
    const users = ['', 'a', 'ab', 'abc', 'user', 'admin', 'x-api'];
    for (const user of users) {
      for (const encode of [base64, base64url]) {
        const echoed = `Authorization header was ${encode(`${user}:${key}`)} then ${encode(key)}`;
        const redacted = redactCredentials(echoed, [key]);
        assert.equal(decodesToKey(redacted), false, `user "${user}": ${redacted}`);
        assert.ok(redacted.includes(redactedMarker));
      }
    }
  });

  test('URL, form and JSON escaping of the key are removed', () => {
    const odd = 'tok "en"/with spaces+and=1234';
    const echoes = [
      `?api=${encodeURIComponent(odd)}`,
      `body=${encodeURIComponent(odd).replaceAll('%20', '+')}`,
      JSON.stringify({ key: odd }),
    ];
    for (const echo of echoes) {
      const redacted = redactCredentials(echo, [odd]);
      assert.ok(redacted.includes(redactedMarker), redacted);
      assert.ok(!redacted.includes('spaces'), redacted);
    }
  });

  test('header positions are redacted even for a credential nobody named', () => {
    const unknown = 'sk-unknown-0a1b2c3d4e5f';
    const echoes = [
      `Authorization: Bearer ${unknown}`,
      `{"authorization":"Bearer ${unknown}"}`,
      `authorization='${unknown}'`,
      `Proxy-Authorization: Basic ${base64(`me:${unknown}`)}`,
      `x-api-key: ${unknown}`,
      `{"x-api-key":"${unknown}"}`,
      `'api-key': '${unknown}'`,
      `your token Bearer ${unknown} is invalid`,
      `GET /v1/models?api_key=${unknown}&x=1`,
      `GET /v1/models?alt=sse&access_token=${unknown}`,
    ];
    for (const echo of echoes) {
      const redacted = redactCredentials(echo, []);
      assert.ok(!redacted.includes(unknown), redacted);
      assert.equal(decodesToKey(redacted), false);
      assert.ok(redacted.includes(redactedMarker), redacted);
    }
  });

  test('ordinary prose and short values are left alone', () => {
    const prose = 'Basic authentication required. Bearer token missing. Authorization failed';
    assert.equal(redactCredentials(prose, ['abc']), prose);
    assert.equal(
      redactCredentials('HTTP 401: Unauthorized', ['', '   ']),
      'HTTP 401: Unauthorized',
    );
  });

  test('redacting twice changes nothing more', () => {
    const echo = `Authorization: Bearer ${key}, x-api-key: ${key}, ${base64(`u:${key}`)}`;
    const once = redactCredentials(echo, [key]);
    assert.equal(redactCredentials(once, [key]), once);
    assert.equal(
      once,
      `Authorization: Bearer ${redactedMarker}, x-api-key: ${redactedMarker}, ${once.split(', ')[2]}`,
    );
  });
});

describe('credentialForms', () => {
  test('a short value is only removed verbatim', () => {
    assert.deepEqual(credentialForms(' abc '), [' abc ', 'abc']);
  });

  test('forms come longest first so a longer form is replaced whole', () => {
    const forms = credentialForms(key);
    const lengths = forms.map((form) => form.length);
    assert.deepEqual(
      lengths,
      [...lengths].sort((left, right) => right - left),
    );
    assert.ok(forms.includes(encodeURIComponent(key)));
  });
});

describe('credentialValues', () => {
  test('named variables at any length, credential-like names from 8 characters', () => {
    const env = {
      ROUTE_KEY_VARIABLE: 'short',
      GITHUB_TOKEN: 'ghp_0123456789abcdef',
      FEATURE_TOKEN: '1',
      MY_SECRET: '   ',
      OTHER_API_KEY: ' sk-0123456789 ',
      PATH: '/usr/bin:/bin',
    };
    assert.deepEqual(credentialValues(env, ['ROUTE_KEY_VARIABLE', undefined, 'UNSET']).sort(), [
      ' sk-0123456789 ',
      'ghp_0123456789abcdef',
      'short',
    ]);
  });
});
