/**
 * docs/deploy: the docker-compose file and the Kubernetes manifests cannot be run here (no Docker
 * daemon, no cluster), so they are parsed and checked for what makes them work together: the
 * compose engines go through PgBouncer in transaction mode with prepared statements off; the
 * Deployment's probes hit /healthz on the container's port, its grace period covers the preStop
 * wait plus the engine's drain, and the Service and PodDisruptionBudget select its pods.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const deploy = join(root, 'docs', 'deploy');

test('docker-compose: engines behind HAProxy, through PgBouncer in transaction mode', () => {
  const compose = parse(readFileSync(join(deploy, 'docker-compose.yml'), 'utf8'));
  const { postgres, pgbouncer, engine, haproxy } = compose.services;
  assert.ok(postgres && pgbouncer && engine && haproxy);
  assert.equal(pgbouncer.environment.POOL_MODE, 'transaction');
  assert.match(pgbouncer.environment.DATABASE_URL, /@postgres:5432\//);
  assert.match(engine.environment.SVC_GRAPHQL_DATABASE_URL, /@pgbouncer:5432\//);
  assert.equal(engine.environment.SVC_GRAPHQL_USE_PREPARED_STATEMENTS, 'false');
  assert.ok(engine.deploy.replicas >= 2);
  assert.ok(existsSync(join(deploy, engine.build.context, 'Dockerfile')));
  const cfgPath = haproxy.volumes[0].split(':')[0];
  const cfg = readFileSync(join(deploy, cfgPath), 'utf8');
  assert.match(cfg, /option httpchk GET \/healthz/);
  assert.match(cfg, new RegExp(`server-template engine ${engine.deploy.replicas} engine:8080 check`));
});

test('kubernetes: Deployment with probes on /healthz and graceful termination, Service and PDB selecting it', () => {
  const dir = join(deploy, 'kubernetes');
  const docs = readdirSync(dir).filter((f) => f.endsWith('.yaml')).flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => {
    assert.deepEqual(d.errors, [], f);
    return d.toJS();
  }));
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
  const [dep] = byKind('Deployment');
  assert.ok(dep.spec.replicas >= 2);
  const labels = dep.spec.template.metadata.labels;
  assert.deepEqual(dep.spec.selector.matchLabels, labels);
  const pod = dep.spec.template.spec;
  const c = pod.containers[0];
  const portName = c.ports[0].name;
  for (const probe of [c.readinessProbe, c.livenessProbe]) {
    assert.equal(probe.httpGet.path, '/healthz');
    assert.equal(probe.httpGet.port, portName);
  }
  // A database outage (which fails /healthz) must not restart the engines: liveness waits minutes, readiness seconds.
  assert.ok(c.livenessProbe.periodSeconds * c.livenessProbe.failureThreshold >= 120);
  assert.ok(c.readinessProbe.periodSeconds * c.readinessProbe.failureThreshold <= 10);
  // preStop wait (ms in the command) + drain timeout must fit in the grace period.
  const preStopMs = Number(/setTimeout\([^,]+,\s*(\d+)\)/.exec(c.lifecycle.preStop.exec.command.join(' '))![1]);
  const drainMs = Number(c.env.find((e: { name: string }) => e.name === 'SVC_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT').value);
  assert.ok(pod.terminationGracePeriodSeconds * 1000 > preStopMs + drainMs);
  assert.equal(c.env.find((e: { name: string }) => e.name === 'SVC_GRAPHQL_USE_PREPARED_STATEMENTS').value, 'false');
  const [svc] = byKind('Service');
  assert.deepEqual(svc.spec.selector, labels);
  assert.equal(svc.spec.ports[0].targetPort, portName);
  const [pdb] = byKind('PodDisruptionBudget');
  assert.deepEqual(pdb.spec.selector.matchLabels, labels);
  assert.ok(pdb.spec.minAvailable < dep.spec.replicas);
});
