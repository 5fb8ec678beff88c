export { introspectDatabase, loadEnumValues, parseSnapshot } from './introspect.js';
export { INTROSPECTION_QUERY } from './introspectionQuery.js';
export { sessionFreeWritesLost } from './sessionFreeWrites.js';
export type * from './types.js';
export { catalogFingerprint, fingerprintOf, recordFingerprint } from './catalogFingerprint.js';
export { fingerprintRelationsOf, introspectWithFingerprints, recordRelationFingerprints, reintrospect, relationFingerprints, relationFingerprintsOf } from './relationFingerprints.js';
export type { RelationFingerprints } from './relationFingerprints.js';
