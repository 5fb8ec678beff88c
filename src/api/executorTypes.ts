/**
 * The executors' contract: what the table in executors.ts maps each kind of compiled root field to,
 * and the arguments every executor gets from executeGraphql.
 */
import type { Session } from '../core/index.js';
import type { EngineContext } from '../appState.js';
import type { GraphqlRequest } from '../graphql/index.js';
import type { CompiledOperation, CompiledRootField } from '../planner/index.js';

/** What an HTTP request brings beyond the GraphQL body, and the headers it may send back (actions). */
export interface RequestExtras {
  clientHeaders: Record<string, string>;
  setCookie: string[];
}

/** What an executor gets: the request's context, its compiled operation and its variables. */
export interface ExecutorArgs {
  ctx: EngineContext;
  session: Session;
  compiled: CompiledOperation;
  variables: Record<string, unknown>;
  /** HTTP request extras (client headers; Set-Cookie values to pass back), when the transport has them. */
  extras?: RequestExtras;
  /** The client's HTTP headers (remote schemas forward them), when the transport has them. */
  clientHeaders?: GraphqlRequest['clientHeaders'];
  /** GraphQL errors to add next to `data` (a remote's field errors). */
  errors?: unknown[];
  /** Response headers to pass back to the client (a remote's `Set-Cookie`). */
  responseHeaders?: Record<string, string>;
}

/** Runs every root field of an operation that the SQL path cannot: resolves to alias → JSON text. */
export type OperationExecutor = (args: ExecutorArgs) => Promise<Map<string, string>>;

/**
 * Runs the query root fields of one `ext:` kind of an operation (one call per kind), while its SQL
 * root fields run: resolves to alias → JSON text; may push GraphQL errors to `args.errors`.
 */
export type QueryFieldsExecutor = (fields: CompiledRootField[], args: ExecutorArgs) => Promise<Map<string, string>>;

/** Runs one mutation root field of an `ext:` kind, after the table mutations committed; resolves to its JSON text. */
export type MutationFieldExecutor = (field: CompiledRootField, args: ExecutorArgs) => Promise<string>;
