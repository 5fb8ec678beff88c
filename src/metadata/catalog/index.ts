export { migrateCatalog, CATALOG_VERSION, CatalogRefusedError } from './migrateCatalog.js';
export type { CatalogOptions, CatalogOutcome } from './migrateCatalog.js';
export { recogniseCatalog, HASURA_V1_ADOPTABLE, HASURA_V2_LAST_KNOWN } from './recogniseCatalog.js';
export type { CatalogKind } from './recogniseCatalog.js';
export { loadMetadata, saveMetadata, touchMetadata, currentResourceVersion, lockMetadata, INSTANCE_ID, SCHEMA_UPDATE_CHANNEL } from './metadataStore.js';
export type { StoredMetadata } from './metadataStore.js';
export { CATALOG_LOCK_KEY, METADATA_LOCK_KEY } from './locks.js';
export { startHeartbeat, INSTANCE_STEPS } from './instances.js';
export type { Heartbeat } from './instances.js';
