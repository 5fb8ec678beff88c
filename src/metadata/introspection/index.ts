export { introspectDatabase, loadEnumValues, parseSnapshot } from './introspect.js';
export { INTROSPECTION_QUERY } from './introspectionQuery.js';
export type * from './types.js';
