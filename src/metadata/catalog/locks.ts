/**
 * Advisory-lock keys of the catalog. `METADATA_LOCK_KEY` serialises every metadata change across
 * engine instances (taken with pg_advisory_xact_lock inside the change's transaction).
 */
export const CATALOG_LOCK_KEY = 7_302_118_401;
export const METADATA_LOCK_KEY = 7_302_118_402;
/** Serialises the installation of live-query change triggers across engines. */
export const LIVE_CHANGE_LOCK_KEY = 7_302_118_403;
