import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  credentialForms,
  credentialValues,
  redactCredentials,
  redactedMarker,
} from '../../src/base/credential-redaction.js';
import { CredentialRedactor } from '../../src/base/credential-redactor.js';
import { CredentialTextStream } from '../../src/base/credential-stream.js';
import { CredentialVariables } from '../../src/core/credential-variables.js';

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

describe('CredentialRedactor', () => {
  const secret = 'sk-parts-0123456789abcdefghij-wxyz';

  test('any start or end of a key from 8 characters is removed, shorter pieces are not', () => {
    const redactor = new CredentialRedactor([{ value: secret, kind: 'secret' }]);
    const quoted = `bad key ${secret.slice(0, 14)}…${secret.slice(-8)} (and ${secret.slice(0, 7)})`;
    assert.equal(
      redactor.redact(quoted),
      `bad key ${redactedMarker}…${redactedMarker} (and ${secret.slice(0, 7)})`,
    );
    assert.equal(redactor.redact(`x${secret}y`), `x${redactedMarker}y`);
  });

  test('a URL is removed whole and its password in every form, its start and end are not', () => {
    const url = 'redis://:p%40ss-w0rd-31c9@cache.internal:6380/2';
    const redactor = new CredentialRedactor([{ value: url, kind: 'url' }]);
    assert.equal(redactor.redact(`connect ${url} failed`), `connect ${redactedMarker} failed`);
    assert.equal(
      redactor.redact('p@ss-w0rd-31c9 and p%40ss-w0rd'),
      `${redactedMarker} and ${redactedMarker}`,
    );
    assert.equal(redactor.redact('redis://cache.internal:6380/2'), 'redis://cache.internal:6380/2');
    assert.ok(!redactor.redact(Buffer.from(':p@ss-w0rd-31c9').toString('base64')).includes('w0'));
  });

  test('redactJson keeps JSON valid when a form cuts an escape apart', () => {
    const odd = 'abcdefg\\hijklmnop';
    const redactor = new CredentialRedactor([{ value: odd, kind: 'secret' }]);
    const json = JSON.stringify({ text: `say ${odd} and ${odd.slice(0, 8)}` });
    const redacted = redactor.redactJson(json);
    assert.deepEqual(JSON.parse(redacted), {
      text: `say ${redactedMarker} and ${redactedMarker}`,
    });
  });
});

describe('CredentialTextStream', () => {
  test('a key streamed in pieces of any size never shows, and other text all shows', () => {
    const key = 'sk-stream-5f0c9b2e7a41d386';
    const redactor = new CredentialRedactor([{ value: key, kind: 'secret' }]);
    const text = `The key is ${key}, base64 ${Buffer.from(`u:${key}`).toString('base64')} and ${key.slice(0, 14)}…${key.slice(-8)}. Done.`;
    for (const size of [1, 2, 3, 5, 7, 11]) {
      const stream = new CredentialTextStream(redactor);
      let shown = '';
      for (let at = 0; at < text.length; at += size) {
        const piece = stream.push(text.slice(at, at + size));
        assert.ok(!piece.includes('5f0c9b2e'), `size ${size}: ${piece}`);
        shown += piece;
      }
      shown += stream.end();
      assert.equal(shown, redactor.redact(text), `size ${size}`);
      assert.ok(shown.startsWith('The key is [redacted], base64 '), shown);
      assert.ok(shown.endsWith('. Done.'));
    }
  });
});

describe('CredentialVariables', () => {
  test('registered names are redacted in every form until undone; a *_KEY value only whole', () => {
    const environment = {
      ROUTE_VARIABLE: ' route-value-6d2f9a0c1b ',
      CACHE_URL: 'redis://:cache-pw-4e8a1c7d0b@127.0.0.1:6379',
      SSH_KEY: '/home/someone/.ssh/id_ed25519',
    };
    const registry = new CredentialVariables(environment);
    const undo = registry.add(['ROUTE_VARIABLE']);
    registry.add(['CACHE_URL'], 'url');
    const text = `a route-value-6d2f at /home/someone/.ssh/id_ed25519 and /home/someone/work; ${environment.CACHE_URL}; cache-pw-4e8a1c7d0b`;
    assert.equal(
      registry.redact(text),
      `a ${redactedMarker} at ${redactedMarker} and /home/someone/work; ${redactedMarker}; ${redactedMarker}`,
    );
    undo();
    assert.match(registry.redact(text), /^a route-value-6d2f at/);
    assert.equal(registry.isCredential('ROUTE_VARIABLE'), false);
    assert.equal(registry.isCredential('CACHE_URL'), true);
  });
});
