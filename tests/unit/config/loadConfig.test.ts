import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, defaultConfig, helpText, loadConfig, OPTIONS } from '../../../src/config/index.js';

const configError = (message: string | RegExp) => (e: unknown) =>
  e instanceof ConfigError && (typeof message === 'string' ? e.message === message : message.test(e.message));

test('defaults match the documented table', () => {
  const c = defaultConfig();
  assert.equal(c.serverHost, '0.0.0.0');
  assert.equal(c.serverPort, 8080);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.dataDir, './.svc-data');
  assert.equal(c.adminSecret, undefined);
  assert.equal(c.stringifyNumericTypes, false);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.pgConnections, 50);
  assert.equal(c.authHookMode, 'GET');
  assert.deepEqual([...c.enabledApis].sort(), ['config', 'graphql', 'metadata']);
  assert.equal(c.corsDomain, '*');
  assert.equal(c.disableCors, false);
  assert.equal(c.enableAllowlist, false);
  assert.deepEqual(c.liveQueries, { batchSize: 100, refetchIntervalMs: 1000, changePollIntervalMs: 50 });
  assert.equal(c.devMode, false);
  assert.equal(c.embeddedPgPort, undefined);
  assert.equal(c.jwtExpiredStatus, 200);
  assert.equal(c.defaultNamingConvention, 'hasura-default');
  assert.equal(loadConfig([], { SVC_GRAPHQL_DEFAULT_NAMING_CONVENTION: 'graphql-default' }).defaultNamingConvention, 'graphql-default');
  assert.ok(Object.isFrozen(c));
});

test('environment variables are read and a flag wins over its variable', () => {
  const env = { SVC_GRAPHQL_SERVER_PORT: '9000', SVC_GRAPHQL_ADMIN_SECRET: 'env-secret', SVC_GRAPHQL_LOG_LEVEL: 'debug' };
  const fromEnv = loadConfig([], env);
  assert.equal(fromEnv.serverPort, 9000);
  assert.equal(fromEnv.adminSecret, 'env-secret');
  assert.equal(fromEnv.logLevel, 'debug');
  const withFlags = loadConfig(['--server-port', '9100', '--admin-secret=flag-secret'], env);
  assert.equal(withFlags.serverPort, 9100);
  assert.equal(withFlags.adminSecret, 'flag-secret');
  assert.equal(withFlags.logLevel, 'debug');
});

test('an empty environment variable counts as unset', () => {
  assert.equal(loadConfig([], { SVC_GRAPHQL_ADMIN_SECRET: '' }).adminSecret, undefined);
});

test('booleans accept true/false/1/0/yes/no, and a boolean flag alone means true', () => {
  for (const [raw, want] of [['true', true], ['1', true], ['yes', true], ['false', false], ['0', false], ['no', false], ['TRUE', true]] as const) {
    assert.equal(loadConfig([], { SVC_GRAPHQL_DEV_MODE: raw }).devMode, want, raw);
  }
  assert.equal(loadConfig(['--dev-mode'], {}).devMode, true);
  assert.equal(loadConfig(['--dev-mode', 'false'], { SVC_GRAPHQL_DEV_MODE: 'true' }).devMode, false);
  assert.equal(loadConfig(['--dev-mode', '--server-port', '1234'], {}).serverPort, 1234);
});

test('lists and structured values are parsed', () => {
  const c = loadConfig(
    ['--enabled-apis', 'graphql, pgdump', '--cors-domain', 'https://*.foo.com, http://localhost:*', '--live-queries-multiplexed-batch-size', '7'],
    { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRET: '{"type":"HS256","key":"k"}', SVC_GRAPHQL_AUTH_HOOK_MODE: 'post' },
  );
  assert.deepEqual([...c.enabledApis], ['graphql', 'pgdump']);
  assert.deepEqual(c.corsDomain, ['https://*.foo.com', 'http://localhost:*']);
  assert.equal(c.liveQueries.batchSize, 7);
  assert.deepEqual(c.jwtSecret, { type: 'HS256', key: 'k' });
  assert.equal(c.authHookMode, 'POST');
});

test('each bad value is refused with one line naming the flag', () => {
  const cases: Array<[string[], Record<string, string>, string | RegExp]> = [
    [['--server-port', 'abc'], {}, '--server-port: expected an integer between 1 and 65535, got "abc"'],
    [['--server-port', '70000'], {}, '--server-port: expected an integer between 1 and 65535, got "70000"'],
    [[], { SVC_GRAPHQL_SERVER_PORT: 'x' }, 'SVC_GRAPHQL_SERVER_PORT (--server-port): expected an integer between 1 and 65535, got "x"'],
    [['--pg-connections', '0'], {}, /^--pg-connections: expected an integer between 1 and/],
    [['--dev-mode', 'maybe'], {}, '--dev-mode: expected a boolean (true/false/1/0/yes/no), got "maybe"'],
    [['--log-level', 'loud'], {}, '--log-level: expected one of debug, info, warn, error, got "loud"'],
    [['--enabled-apis', 'graphql,console'], {}, /^--enabled-apis: unknown API "console"/],
    [['--cors-domain', 'foo.com'], {}, /^--cors-domain: expected origins like/],
    [['--auth-hook', 'not a url'], { SVC_GRAPHQL_ADMIN_SECRET: 's' }, '--auth-hook: expected an http(s) URL, got "not a url"'],
    [['--auth-hook-mode', 'PUT'], {}, '--auth-hook-mode: expected one of GET, POST, got "PUT"'],
    [['--database-url', 'mysql://x'], {}, /^--database-url: expected a postgres:\/\/ or postgresql:\/\/ URL/],
    [['--jwt-secret', '{oops'], { SVC_GRAPHQL_ADMIN_SECRET: 's' }, /^--jwt-secret: expected a JSON object/],
    [['--jwt-secret', '[1]'], { SVC_GRAPHQL_ADMIN_SECRET: 's' }, '--jwt-secret: expected a JSON object'],
    [['--jwt-expired-status', '403'], {}, '--jwt-expired-status: expected one of 200, 401, got "403"'],
    [['--default-naming-convention', 'camel'], {}, '--default-naming-convention: expected one of hasura-default, graphql-default, got "camel"'],
    [['--embedded-pg-port', '-1'], {}, /^--embedded-pg-port: expected an integer between 1 and 65535/],
    [['--live-queries-multiplexed-refetch-interval', '1.5'], {}, /^--live-queries-multiplexed-refetch-interval: expected an integer/],
    [['--no-such-flag'], {}, '--no-such-flag: unknown flag (see --help)'],
    [['--server-port'], {}, '--server-port: expected a value'],
    [['stray'], {}, 'unexpected argument "stray" (see --help)'],
  ];
  for (const [argv, env, message] of cases) {
    assert.throws(() => loadConfig(argv, env), configError(message), `${argv.join(' ')} ${JSON.stringify(env)}`);
  }
});

test('secrets and database passwords are never echoed in errors', () => {
  assert.throws(() => loadConfig(['--database-url', 'http://user:hunter2@x/db'], {}), (e: unknown) => e instanceof ConfigError && !e.message.includes('hunter2'));
  assert.throws(() => loadConfig(['--jwt-secret', '{"key": "topsecret"'], { SVC_GRAPHQL_ADMIN_SECRET: 's' }), (e: unknown) => e instanceof ConfigError && !e.message.includes('topsecret'));
});

test('JWT or an auth webhook require an admin secret, and exclude each other', () => {
  assert.throws(() => loadConfig(['--jwt-secret', '{"type":"HS256","key":"k"}'], {}), configError(/^--jwt-secret: requires an admin secret/));
  assert.throws(() => loadConfig(['--auth-hook', 'http://h'], {}), configError(/^--auth-hook: requires an admin secret/));
  assert.throws(
    () => loadConfig(['--auth-hook', 'http://h', '--jwt-secret', '{}', '--admin-secret', 's'], {}),
    configError('--jwt-secret: cannot be used together with --auth-hook'),
  );
});

test('--help lists every flag with its environment twin and default', () => {
  const help = helpText();
  for (const o of OPTIONS) {
    assert.ok(help.includes(o.flag), o.flag);
    assert.ok(help.includes(o.env), o.env);
    if (o.default !== undefined) assert.ok(help.includes(`default: ${o.default}`), `${o.flag} default`);
  }
});

test('API limit flags: unset by default, flags and env twins, bad values refused', () => {
  const d = defaultConfig();
  assert.deepEqual([d.queryDepthLimit, d.queryNodeLimit, d.queryBatchLimit, d.maxNonAdminBodySize], [undefined, undefined, undefined, 2097152]);
  const c = loadConfig(['--query-depth-limit', '5', '--query-batch-limit=3'], { SVC_GRAPHQL_QUERY_NODE_LIMIT: '100', SVC_GRAPHQL_MAX_NON_ADMIN_BODY_SIZE: '4096' });
  assert.deepEqual([c.queryDepthLimit, c.queryNodeLimit, c.queryBatchLimit, c.maxNonAdminBodySize], [5, 100, 3, 4096]);
  assert.throws(() => loadConfig(['--query-depth-limit', '0'], {}), configError(/--query-depth-limit/));
  assert.throws(() => loadConfig([], { SVC_GRAPHQL_QUERY_NODE_LIMIT: 'many' }), configError(/query-node-limit|QUERY_NODE_LIMIT/));
  assert.match(helpText(), /--query-depth-limit[\s\S]*SVC_GRAPHQL_QUERY_DEPTH_LIMIT/);
});

test('--workers: a count, or auto = the cores this process may use', async () => {
  const { availableParallelism } = await import('node:os');
  assert.equal(defaultConfig().workers, 1);
  assert.equal(loadConfig(['--workers', '3'], {}).workers, 3);
  assert.equal(loadConfig([], { SVC_GRAPHQL_WORKERS: 'auto' }).workers, availableParallelism());
  assert.throws(() => loadConfig(['--workers', '0'], {}), (e: unknown) => e instanceof ConfigError && /--workers: expected 'auto' or an integer between 1 and 1024, got "0"/.test(e.message));
});

test('body limit flags: defaults, flags and env twins, bad values refused', () => {
  const d = defaultConfig();
  assert.deepEqual(
    [d.maxUnauthenticatedBodySize, d.maxNonAdminJsonValues, d.maxAdminBodySize, d.wsMaxQueuedMessages, d.wsInitOverridesHeaders],
    [65536, 100000, 52428800, 1000, undefined],
  );
  const c = loadConfig(['--max-unauthenticated-body-size', '2048', '--ws-init-overrides-headers', '--ws-max-queued-messages=3'], { SVC_GRAPHQL_MAX_NON_ADMIN_JSON_VALUES: '500', SVC_GRAPHQL_MAX_ADMIN_BODY_SIZE: '1048576' });
  assert.deepEqual([c.maxUnauthenticatedBodySize, c.maxNonAdminJsonValues, c.maxAdminBodySize, c.wsMaxQueuedMessages, c.wsInitOverridesHeaders], [2048, 500, 1048576, 3, true]);
  assert.throws(() => loadConfig(['--max-unauthenticated-body-size', '10'], {}), configError(/--max-unauthenticated-body-size/));
  assert.throws(() => loadConfig(['--ws-max-queued-messages', '0'], {}), configError(/--ws-max-queued-messages/));
});

test('read replicas: a comma list of postgres URLs, an item that does not parse named by position; max lag in seconds', () => {
  const c = loadConfig(['--read-replica-urls', 'postgres://a:1/x, postgresql://b/x', '--read-replica-max-lag', '0.5'], {});
  assert.deepEqual(c.readReplicaUrls, ['postgres://a:1/x', 'postgresql://b/x']);
  assert.equal(c.readReplicaMaxLagMs, 500);
  assert.equal(defaultConfig().readReplicaUrls, undefined);
  assert.equal(defaultConfig().readReplicaMaxLagMs, 5000);
  assert.equal(loadConfig([], { SVC_GRAPHQL_READ_REPLICA_URLS: 'postgres://r/db' }).readReplicaUrls?.[0], 'postgres://r/db');
  assert.throws(() => loadConfig(['--read-replica-urls', 'postgres://a/x,mysql://secret@b/x'], {}), configError(/^--read-replica-urls \(URL 2 of 2\): expected a postgres:\/\/ or postgresql:\/\/ URL, got a value starting with "mysql:\/\/sec"$/));
  assert.throws(() => loadConfig(['--read-replica-max-lag', 'soon'], {}), configError(/^--read-replica-max-lag: expected a number of seconds/));
});
