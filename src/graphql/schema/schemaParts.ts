/**
 * graphql/schema's own parts of a role schema, in build order: the tables' query root fields, the
 * remote schemas' root fields, the tables' mutations, and remote relationships on table types.
 * appState.ts adds the actions' and names the result `ENGINE_PARTS`.
 */
import type { SchemaParts } from './context.js';
import { mutationRootFields } from './mutationRoot.js';
import { queryRootFields } from './queryRoot.js';
import { remoteRelFields, remoteSchemaRootFields } from './remoteTypes.js';
import { sourceRelFields } from './sourceRelTypes.js';
import { streamRootFields } from './streamRoot.js';

export const TABLE_SCHEMA_PARTS: SchemaParts = {
  query: [queryRootFields, remoteSchemaRootFields('query')],
  mutation: [remoteSchemaRootFields('mutation'), mutationRootFields],
  subscription: [streamRootFields],
  tableFields: [remoteRelFields, sourceRelFields],
  sources: { query: [queryRootFields], mutation: [mutationRootFields], subscription: [streamRootFields] },
};
