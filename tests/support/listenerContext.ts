/**
 * The least engine context the HTTP listener needs (createEngineServer), for tests that drive it
 * with stand-in handlers: default config with a 5 s shutdown bound, a database that answers
 * pings, a silent logger, an empty schema cache.
 */
import { defaultConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/server/logger.js';

export function listenerContext(): any {
  return {
    config: { ...defaultConfig(), shutdownTimeoutMs: 5000 },
    db: { ping: async () => true },
    logger: silentLogger(),
    state: { current: { inconsistentObjects: [] } },
    version: 'test',
  };
}
