#!/usr/bin/env node
/**
 * The floor of answering a large introspection, whatever makes it: (a) writing an answer that already
 * exists as one UTF-8 Buffer to an HTTP client on 127.0.0.1 (a node:http server in a child process, the
 * client here reading and dropping the bytes; wall from the request to the last byte, the server's CPU),
 * and (b) producing that much JSON text in Node from small string pieces the way the introspection writer
 * does (pieces pushed to an array, joined every 8,192 pieces, each chunk encoded to UTF-8 once), then
 * the same with the chunks joined into one string and encoded once (the text kept as one string).
 *
 *   node scripts/benchIntrospectionFloor.mjs [MB=107] [runs=5]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';

const MB = Number(process.argv[2] ?? 107);
const RUNS = Number(process.argv[3] ?? 5);
const BYTES = Math.round(MB * 1e6);

const cpuMs = (from) => { const u = process.cpuUsage(from); return (u.user + u.system) / 1000; };
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// (b) JSON text from pieces: a field reference of an introspection answer, cut into the pieces the writer pushes.
const PIECES = ['{', '"name":', '"t0042_aggregate_order_by"', ',"description":', '"order by aggregate values of table \\"t0042\\""',
  ',"args":', '[]', ',"type":', '{"kind":"INPUT_OBJECT","name":"t0042_max_order_by","ofType":null}', ',"isDeprecated":false', ',"deprecationReason":null', '}', ','];
function fromPieces(asOneString) {
  const chunks = [];
  let out = [], written = 0, pieces = 0;
  while (written < BYTES) {
    for (const p of PIECES) { out.push(p); written += p.length; pieces++; }
    if (out.length >= 8192) { const s = out.join(''); chunks.push(asOneString ? s : Buffer.from(s)); out = []; }
  }
  const last = out.join('');
  if (!asOneString) { chunks.push(Buffer.from(last)); return { bytes: chunks.reduce((n, b) => n + b.length, 0), pieces }; }
  chunks.push(last);
  const text = chunks.join('');
  return { bytes: Buffer.from(text).length, pieces };
}
const build = { chunks: [], one: [] };
for (let i = 0; i < RUNS; i++) {
  for (const [key, one] of [['chunks', false], ['one', true]]) {
    const c = process.cpuUsage(), t = performance.now();
    const r = fromPieces(one);
    build[key].push({ wall: performance.now() - t, cpu: cpuMs(c), pieces: r.pieces, bytes: r.bytes });
  }
}

// (a) A Buffer written to a client on 127.0.0.1.
const server = spawn(process.execPath, ['-e', `
  const http = require('node:http');
  const body = Buffer.alloc(${BYTES}, 0x61);
  http.createServer((req, res) => {
    const c = process.cpuUsage();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body, () => { const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ cpu: (u.user + u.system) / 1000 }) + '\\n'); });
  }).listen(0, '127.0.0.1', function () { process.stdout.write(JSON.stringify({ port: this.address().port }) + '\\n'); });
`], { stdio: ['ignore', 'pipe', 'inherit'] });
const lines = [];
let waiting;
let rest = '';
server.stdout.on('data', (d) => {
  rest += d;
  let i;
  while ((i = rest.indexOf('\n')) >= 0) { lines.push(JSON.parse(rest.slice(0, i))); rest = rest.slice(i + 1); waiting?.(); }
});
const nextLine = async () => { while (lines.length === 0) await new Promise((r) => { waiting = r; }); return lines.shift(); };
const { port } = await nextLine();
const agent = new http.Agent({ keepAlive: true });
const send = [];
for (let i = 0; i < RUNS + 1; i++) {
  const c = process.cpuUsage(), t = performance.now();
  const got = await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      let n = 0;
      res.on('data', (d) => { n += d.length; });
      res.on('end', () => resolve(n));
    }).on('error', reject);
  });
  const wall = performance.now() - t, client = cpuMs(c);
  const { cpu } = await nextLine();
  if (got !== BYTES) throw new Error(`got ${got} bytes`);
  if (i > 0) send.push({ wall, server: cpu, client });
}
server.kill();
agent.destroy();

const fmt = (xs, k) => `${median(xs.map((x) => x[k])).toFixed(0)} [${Math.min(...xs.map((x) => x[k])).toFixed(0)}–${Math.max(...xs.map((x) => x[k])).toFixed(0)}]`;
console.log(`answer ${MB} MB, ${RUNS} runs, median [range] ms; load ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`(a) a Buffer written to an HTTP client on 127.0.0.1: wall ${fmt(send, 'wall')}, server CPU ${fmt(send, 'server')}, client CPU ${fmt(send, 'client')}`);
console.log(`(b) JSON from ${build.chunks[0].pieces.toLocaleString('en')} pieces, each chunk to UTF-8: wall ${fmt(build.chunks, 'wall')}, CPU ${fmt(build.chunks, 'cpu')}`);
console.log(`    the same joined into one string, then to UTF-8: wall ${fmt(build.one, 'wall')}, CPU ${fmt(build.one, 'cpu')}`);
