/**
 * Library entry (the package's only export, `import … from 'svc-graphql-engine'`): embed the engine
 * in a Node process, or start one in tests.
 *
 *   const engine = await startEngine(loadConfig(['--server-port', '0'], process.env));
 *   … fetch(`${engine.url}/v1/graphql`, …) …
 *   await engine.stop();
 *
 * Start-up failures that a user can fix are thrown as `DatabaseConnectionError` (names the cause
 * and host:port) or `EmbeddedPostgresError` (data folder / permissions), each with a one-line message.
 */
export { startEngine } from './server/index.js';
export type { EngineHandle, StartEngineOptions } from './server/index.js';
export { loadConfig, defaultConfig, ConfigError } from './config/index.js';
export type { ServerConfig } from './config/index.js';
export { DatabaseConnectionError, EmbeddedPostgresError } from './execution/index.js';
