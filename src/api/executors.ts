/**
 * What runs each kind of compiled root field: THE table. executeGraphql reads it and nothing
 * registers into it.
 *
 * - `sql`, `typename` and `introspection` root fields of queries and subscriptions run in
 *   executeGraphql itself (one statement per root field, or one combined statement).
 * - `queryFields`: `ext:` query root fields that run next to the SQL ones, one call per kind.
 * - `operations`: whole operations the SQL path cannot run — any mutation (table mutations in one
 *   transaction, then `mutationFields`), and a query with action fields (its fields in order).
 * - `mutationFields`: `ext:` mutation root fields other than table mutations.
 */
import { actionMutationField, actionQueryExecutor } from './executeAction.js';
import { mutationExecutor } from './executeMutation.js';
import { remoteJoinFields, remoteMutationField, remoteQueryFields } from './executeRemote.js';
import type { MutationFieldExecutor, OperationExecutor, QueryFieldsExecutor } from './executorTypes.js';

export interface Executors {
  readonly queryFields: Readonly<Record<string, QueryFieldsExecutor>>;
  readonly mutationFields: Readonly<Record<string, MutationFieldExecutor>>;
  readonly operations: Readonly<Record<'query' | 'mutation', OperationExecutor>>;
}

const mutationFields = {
  'ext:action': actionMutationField,
  'ext:remote': remoteMutationField,
} satisfies Record<`ext:${string}`, MutationFieldExecutor>;

export const EXECUTORS: Executors = {
  queryFields: {
    'ext:remote': remoteQueryFields,
    'ext:remote_join': remoteJoinFields,
  } satisfies Record<`ext:${string}`, QueryFieldsExecutor>,
  mutationFields,
  operations: {
    query: actionQueryExecutor,
    mutation: mutationExecutor(mutationFields),
  },
};
