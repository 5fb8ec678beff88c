/**
 * Library entry: embed the engine or start it in tests.
 *
 *   const engine = await startEngine(loadConfig([], process.env));
 *   … fetch(`${engine.url}/v1/graphql`, …) …
 *   await engine.stop();
 */
export { startEngine } from './server/index.js';
export type { EngineHandle, StartEngineOptions } from './server/index.js';
export { loadConfig, defaultConfig, ConfigError } from './config/index.js';
export type { ServerConfig } from './config/index.js';
