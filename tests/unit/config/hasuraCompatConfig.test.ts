import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, hasuraEnvNames, loadConfig, OPTIONS } from '../../../src/config/index.js';

const configError = (message: string | RegExp) => (e: unknown) =>
  e instanceof ConfigError && (typeof message === 'string' ? e.message === message : message.test(e.message));
const ON = { SVC_GRAPHQL_HASURA_COMPAT: 'true' };
const DB = 'postgres://app:pw@db:5432/app';

test('the switch: auto by default; --hasura-compat alone, or SVC_GRAPHQL_HASURA_COMPAT, turns it on; HASURA_GRAPHQL_* cannot', () => {
  assert.equal(loadConfig([], {}).hasuraCompat, 'auto');
  assert.equal(loadConfig(['--hasura-compat'], {}).hasuraCompat, 'true');
  assert.equal(loadConfig(['--hasura-compat', 'false'], {}).hasuraCompat, 'false');
  assert.equal(loadConfig([], { SVC_GRAPHQL_HASURA_COMPAT: '1' }).hasuraCompat, 'true');
  assert.equal(loadConfig([], { SVC_GRAPHQL_HASURA_COMPAT: 'AUTO' }).hasuraCompat, 'auto');
  assert.throws(() => loadConfig([], { SVC_GRAPHQL_HASURA_COMPAT: 'maybe' }), configError(/^SVC_GRAPHQL_HASURA_COMPAT \(--hasura-compat\): expected auto or a boolean/));
  // Neither Hasura's name for the switch nor any other Hasura variable switches it on.
  const c = loadConfig([], { HASURA_GRAPHQL_HASURA_COMPAT: 'true', HASURA_GRAPHQL_SERVER_PORT: '9999' });
  assert.equal(c.hasuraCompat, 'auto');
  assert.equal(c.serverPort, 8080);
  assert.deepEqual(c.hasuraEnv, { read: [], notRead: ['HASURA_GRAPHQL_HASURA_COMPAT', 'HASURA_GRAPHQL_SERVER_PORT'] });
});

test('on: a Hasura deployment file is read where the engine\'s variable is unset; flags and SVC_GRAPHQL_* win', () => {
  const env = {
    ...ON,
    HASURA_GRAPHQL_DATABASE_URL: DB,
    HASURA_GRAPHQL_ADMIN_SECRET: 'hasura-secret',
    HASURA_GRAPHQL_JWT_SECRET: '{"type":"HS256","key":"a-shared-key-of-at-least-32-characters"}',
    HASURA_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous',
    HASURA_GRAPHQL_ENABLE_CONSOLE: 'true',
    HASURA_GRAPHQL_SERVER_PORT: '9000',
    HASURA_GRAPHQL_ENABLED_LOG_TYPES: 'startup, http-log',
  };
  const c = loadConfig([], env);
  assert.equal(c.databaseUrl, DB);
  assert.equal(c.adminSecret, 'hasura-secret');
  assert.deepEqual(c.jwtSecret, { type: 'HS256', key: 'a-shared-key-of-at-least-32-characters' });
  assert.equal(c.unauthorizedRole, 'anonymous');
  assert.equal(c.enableConsole, true);
  assert.equal(c.serverPort, 9000);
  assert.deepEqual([...c.hasuraEnv!.read].sort(), ['HASURA_GRAPHQL_ADMIN_SECRET', 'HASURA_GRAPHQL_DATABASE_URL', 'HASURA_GRAPHQL_ENABLE_CONSOLE', 'HASURA_GRAPHQL_JWT_SECRET', 'HASURA_GRAPHQL_SERVER_PORT', 'HASURA_GRAPHQL_UNAUTHORIZED_ROLE']);
  // A variable no option matches is reported, not read.
  assert.deepEqual(c.hasuraEnv!.notRead, ['HASURA_GRAPHQL_ENABLED_LOG_TYPES']);
  const ours = loadConfig(['--server-port', '9100'], { ...env, SVC_GRAPHQL_ADMIN_SECRET: 'svc-secret' });
  assert.equal(ours.adminSecret, 'svc-secret');
  assert.equal(ours.serverPort, 9100);
  assert.ok(!ours.hasuraEnv!.read.includes('HASURA_GRAPHQL_ADMIN_SECRET'));
  // An empty engine variable counts as unset.
  assert.equal(loadConfig([], { ...env, SVC_GRAPHQL_ADMIN_SECRET: '' }).adminSecret, 'hasura-secret');
});

test('on: every option with an SVC_GRAPHQL_* variable has a Hasura twin that reads the same value', () => {
  const sample: Record<string, string> = {
    databaseUrl: DB, listenDatabaseUrl: DB, readReplicaUrls: DB, redisUrl: 'redis://127.0.0.1:6379', authHook: 'http://hook/auth', otelExporterOtlpEndpoint: 'http://otel:4318',
    jwtSecret: '{"type":"HS256","key":"k"}', jwtSecrets: '[{"type":"HS256","key":"k"}]', corsDomain: 'https://a.example', enabledApis: 'graphql,metadata',
    authHookMode: 'POST', logLevel: 'debug', defaultNamingConvention: 'graphql-default', jwtExpiredStatus: '401', workers: '2', readReplicaMaxLagMs: '3',
  };
  const excluded = new Set(['hasuraCompat', 'hasuraSessionVariables', 'adoptHasuraCatalog']);
  for (const spec of OPTIONS) {
    if (!spec.env.startsWith('SVC_GRAPHQL_') || excluded.has(spec.key)) continue;
    const names = hasuraEnvNames(spec);
    assert.ok(names.length > 0, `${spec.env} has a Hasura twin`);
    if (spec.key === 'jwtSecret' || spec.key === 'jwtSecrets' || spec.key === 'authHook') continue; // need an admin secret: below
    // A value the option takes: the sample, else the first of a few that parses.
    const raw = sample[spec.key] ?? ['true', '5', '1000', 'value'].find((v) => {
      try {
        return loadConfig([], { [spec.env]: v }) !== undefined;
      } catch {
        return false;
      }
    })!;
    const ours = loadConfig([], { [spec.env]: raw }) as unknown as Record<string, unknown>;
    const theirs = loadConfig([], { ...ON, [names[0]!]: spec.hasuraParse ? String(Number(raw) / 1000) : raw }) as unknown as Record<string, unknown>;
    assert.deepEqual(theirs[spec.key], ours[spec.key], `${names[0]} reads as ${spec.env}`);
  }
  for (const key of ['HASURA_GRAPHQL_JWT_SECRET', 'HASURA_GRAPHQL_JWT_SECRETS', 'HASURA_GRAPHQL_AUTH_HOOK']) {
    const c = loadConfig([], { ...ON, HASURA_GRAPHQL_ADMIN_SECRET: 's', [key]: key === 'HASURA_GRAPHQL_AUTH_HOOK' ? 'http://hook/auth' : key.endsWith('S') ? '[{"type":"HS256","key":"k"}]' : '{"type":"HS256","key":"k"}' });
    assert.deepEqual([...c.hasuraEnv!.read].sort(), ['HASURA_GRAPHQL_ADMIN_SECRET', key].sort());
  }
});

test('on: Hasura names that differ from the engine\'s, and Hasura\'s units', () => {
  assert.equal(loadConfig([], { ...ON, HASURA_GRAPHQL_ACCESS_KEY: 'old-name' }).adminSecret, 'old-name');
  assert.equal(loadConfig([], { ...ON, HASURA_GRAPHQL_ADMIN_SECRET: 'new', HASURA_GRAPHQL_ACCESS_KEY: 'old' }).adminSecret, 'new');
  assert.equal(loadConfig([], { ...ON, HASURA_GRAPHQL_SCHEMA_SYNC_POLL_INTERVAL: '2000' }).schemaSyncIntervalMs, 2000);
  // Hasura's graceful-shutdown timeout is in seconds; the engine's flag is in milliseconds.
  assert.equal(loadConfig([], { ...ON, HASURA_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT: '60' }).shutdownTimeoutMs, 60_000);
  assert.equal(loadConfig([], { ...ON, SVC_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT: '60' }).shutdownTimeoutMs, 60);
  // A bad value is named by the variable it came from.
  assert.throws(() => loadConfig([], { ...ON, HASURA_GRAPHQL_SERVER_PORT: 'eighty' }), configError(/^HASURA_GRAPHQL_SERVER_PORT \(--server-port\): expected an integer/));
  // JWT needs an admin secret, wherever each came from.
  assert.throws(() => loadConfig([], { ...ON, HASURA_GRAPHQL_JWT_SECRET: '{"type":"HS256","key":"k"}' }), configError(/requires an admin secret/));
});

test('on: Hasura\'s separate metadata database alone is refused; beside the database URL it is reported as not read', () => {
  assert.throws(() => loadConfig([], { ...ON, HASURA_GRAPHQL_METADATA_DATABASE_URL: DB }), configError(/^HASURA_GRAPHQL_METADATA_DATABASE_URL is set but not read: .*set HASURA_GRAPHQL_DATABASE_URL/));
  const c = loadConfig([], { ...ON, HASURA_GRAPHQL_METADATA_DATABASE_URL: DB, HASURA_GRAPHQL_DATABASE_URL: DB });
  assert.equal(c.databaseUrl, DB);
  assert.deepEqual(c.hasuraEnv!.notRead, ['HASURA_GRAPHQL_METADATA_DATABASE_URL']);
});

test('off or auto: HASURA_GRAPHQL_* are not read (reported); an admin secret only in Hasura\'s name refuses to start unless the switch is given', () => {
  const env = { HASURA_GRAPHQL_DATABASE_URL: DB, HASURA_GRAPHQL_ENABLE_CONSOLE: 'true' };
  for (const compat of [{}, { SVC_GRAPHQL_HASURA_COMPAT: 'false' }, { SVC_GRAPHQL_HASURA_COMPAT: 'auto' }]) {
    const c = loadConfig([], { ...env, ...compat });
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.enableConsole, undefined);
    assert.deepEqual(c.hasuraEnv, { read: [], notRead: ['HASURA_GRAPHQL_DATABASE_URL', 'HASURA_GRAPHQL_ENABLE_CONSOLE'] });
  }
  // Without it the engine would run with no admin secret: every request admin.
  for (const name of ['HASURA_GRAPHQL_ADMIN_SECRET', 'HASURA_GRAPHQL_ACCESS_KEY']) {
    assert.throws(() => loadConfig([], { [name]: 's' }), configError(new RegExp(`^${name} is set but not read, and without an admin secret every request would be admin: start with --hasura-compat`)));
  }
  assert.equal(loadConfig(['--hasura-compat', 'false'], { HASURA_GRAPHQL_ADMIN_SECRET: 's' }).adminSecret, undefined);
  assert.equal(loadConfig([], { HASURA_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_ADMIN_SECRET: 'ours' }).adminSecret, 'ours');
  // Nothing set: nothing reported.
  assert.equal(loadConfig([], {}).hasuraEnv, undefined);
});
