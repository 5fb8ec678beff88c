/**
 * The WebSocket handshake honours the CORS settings as Hasura does: with `--cors-domain` set, a
 * handshake whose Origin is not allowed is refused with 400 access-denied; allowed origins, clients
 * sending no Origin (non-browser) and `--disable-cors` / `*` engines connect.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startTestEngine } from './harness.js';

/** Opens a graphql-ws socket with `origin`; resolves to 'open' or the refusal's status and body. */
function handshake(url: string, origin?: string): Promise<'open' | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/graphql', ['graphql-ws'], origin ? { origin } : {});
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', (err) => reject(err));
  });
}

test('a handshake from an origin outside --cors-domain is refused', async (t) => {
  const e = await startTestEngine({ corsDomain: ['https://app.example.com', 'https://*.example.org'] });
  t.after(() => e.stop());
  assert.equal(await handshake(e.url, 'https://app.example.com'), 'open');
  assert.equal(await handshake(e.url, 'https://x.example.org'), 'open');
  assert.equal(await handshake(e.url), 'open', 'no Origin header: not a browser, allowed');
  const refused = await handshake(e.url, 'https://evil.example.net');
  assert.notEqual(refused, 'open');
  assert.equal((refused as { status: number }).status, 400);
  assert.deepEqual(JSON.parse((refused as { body: string }).body), {
    path: '$',
    error: 'received origin header does not match configured CORS domains',
    code: 'access-denied',
  });
});

test('any origin connects with the default * domains and with CORS disabled', async (t) => {
  const open = await startTestEngine();
  t.after(() => open.stop());
  assert.equal(await handshake(open.url, 'https://anywhere.example.net'), 'open');
  const disabled = await startTestEngine({ corsDomain: ['https://app.example.com'], disableCors: true });
  t.after(() => disabled.stop());
  assert.equal(await handshake(disabled.url, 'https://anywhere.example.net'), 'open');
});
