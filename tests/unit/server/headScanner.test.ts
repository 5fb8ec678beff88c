import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadScanner } from '../../../src/server/headScanner.js';

test('the end of a head is found wherever reads cut it, each byte looked at once', () => {
  // Random strings over CR, LF and one letter, cut into random reads: the scanner finds the
  // first CRLFCRLF exactly where indexOf on the whole finds it, having been fed each byte once.
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const alphabet = ['\r', '\n', 'a'];
  for (let n = 0; n < 50_000; n++) {
    let s = '';
    for (let i = 1 + Math.floor(rand() * 16); i > 0; i--) s += alphabet[Math.floor(rand() * 3)];
    const buf = Buffer.from(s, 'latin1');
    const want = buf.indexOf('\r\n\r\n');
    const scanner = new HeadScanner();
    let got = -1;
    let p = 0;
    while (p < buf.length && got < 0) {
      const k = 1 + Math.floor(rand() * 4);
      got = scanner.feed(buf.subarray(p, p + k));
      p += k;
    }
    assert.equal(got, want, JSON.stringify(s));
    assert.equal(scanner.scanned, want < 0 ? buf.length : want + 4, `fed each byte once, up to the head's end: ${JSON.stringify(s)}`);
  }
});

test('a 16 KiB head trickled one byte per read, then reset for the next request', () => {
  const head = Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(16 * 1024 - 40)}\r\n\r\n`, 'latin1');
  const scanner = new HeadScanner();
  let end = -1;
  for (let i = 0; i < head.length && end < 0; i++) end = scanner.feed(head.subarray(i, i + 1));
  assert.equal(end, head.length - 4);
  scanner.reset();
  assert.equal(scanner.feed(Buffer.from('GET / HTTP/1.1\r\n\r\n')), 14);
});
