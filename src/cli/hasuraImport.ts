/** The Hasura-export mapping the CLI applies before `replace_metadata` (shared with the engine's catalog adoption). */
export { importHasuraMetadata, mapHasuraBrand, toV3, type ImportResult } from '../metadata/index.js';
