export { importHasuraMetadata, mapHasuraBrand, toV3 } from './mapHasuraMetadata.js';
export type { ImportResult } from './mapHasuraMetadata.js';
export { readHasuraV1Catalog } from './readHasuraV1Catalog.js';
export { adoptHasuraV1Catalog, readyHasuraQueues } from './adoptHasuraCatalog.js';
export type { AdoptionReport } from './adoptHasuraCatalog.js';
export { readsHasuraSession, hasuraSessionWarning, findHasuraSessionReaders, hasuraSessionReadersAmong } from './hasuraSessionSql.js';
export { adoptHasuraV2Catalog, SVC_METADATA_TABLE } from './adoptHasuraV2Catalog.js';
