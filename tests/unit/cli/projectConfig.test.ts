/** A Hasura CLI project's config.yaml: endpoint, admin secret and folders, with flags and env winning as in Hasura's CLI. */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseFlags } from '../../../src/cli/args.js';
import { projectOf } from '../../../src/cli/projectConfig.js';
import type { CliIo } from '../../../src/cli/io.js';

const io = (env: Record<string, string> = {}): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: () => {}, err: (l) => void lines.push(l), progress: (l) => void lines.push(l), env, color: false };
};

test('config.yaml: endpoint, admin_secret (v1: access_key) and *_directory; --flags, then env, win', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-project-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'config.yaml'), 'version: 3\nendpoint: http://hasura.example:8080/\nadmin_secret: my-secret\nmetadata_directory: md\n');
  const plain = io();
  const p = await projectOf(parseFlags(['--project', dir], {}), plain);
  assert.deepEqual(p.conn, { endpoint: 'http://hasura.example:8080', adminSecret: 'my-secret' });
  assert.equal(p.dir('metadata'), join(dir, 'md'));
  assert.equal(p.dir('migrations'), join(dir, 'migrations'));
  assert.match(plain.lines.join('\n'), /config\.yaml: endpoint http:\/\/hasura\.example:8080/);

  const env = await projectOf(parseFlags(['--project', dir], {}), io({ SVC_GRAPHQL_ENDPOINT: 'http://127.0.0.1:9', SVC_GRAPHQL_ADMIN_SECRET: 's' }));
  assert.deepEqual(env.conn, { endpoint: 'http://127.0.0.1:9', adminSecret: 's' });
  const flags = await projectOf(parseFlags(['--project', dir, '--endpoint', 'http://a:1', '--admin-secret', 'f', '--dir', 'x'], { dir: { type: 'string' } }), io());
  assert.deepEqual([flags.conn, flags.dir('metadata')], [{ endpoint: 'http://a:1', adminSecret: 'f' }, 'x']);

  await writeFile(join(dir, 'config.yaml'), 'endpoint: http://old:8080\naccess_key: k\n');
  assert.equal((await projectOf(parseFlags(['--project', dir], {}), io())).conn.adminSecret, 'k');
  await writeFile(join(dir, 'config.yaml'), '- not a config\n');
  await assert.rejects(projectOf(parseFlags(['--project', dir], {}), io()), /config\.yaml: expected a Hasura CLI config/);
});

test('no config.yaml: the folders of the project (or of the current folder), localhost:8080', async () => {
  const p = await projectOf(parseFlags([], {}), io());
  assert.deepEqual([p.conn.endpoint, p.dir('seeds')], ['http://localhost:8080', 'seeds']);
  const q = await projectOf(parseFlags(['--project', '/nowhere'], {}), io());
  assert.equal(q.dir('migrations'), '/nowhere/migrations');
});
