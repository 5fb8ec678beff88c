/**
 * The shape of one `/v1/query` operation: a decoder for its `args` (aeson-style errors with
 * paths relative to `args`, as Hasura reports them) and a `run` over an `OpContext`. The registry
 * (operations.ts) maps every operation type to one handler.
 */
import type { Session } from '../core/index.js';
import type { DbClient } from '../execution/index.js';
import type { EngineContext } from '../appState.js';
import type { WorkingState } from './workingState.js';

export interface OpContext {
  engine: EngineContext;
  session: Session;
  /** The request's transaction. */
  client: DbClient;
  /** Metadata, snapshot and cache as changed by the operations run so far in this request. */
  work: WorkingState;
  /** JSON path of this operation's `args` for errors found while running (`$.args`, `$.args[2].args`). */
  path: string;
  /** The source the operation names (`source` of a pg_* command) when it is not `default`. */
  source?: string;
}

export interface OperationHandler<A = unknown> {
  /** Decodes `args` (path `$` = the args root, as Hasura's tagged decoding reports it). */
  decode(args: unknown, path: string, version: number): A;
  run(ctx: OpContext, args: A): Promise<unknown>;
  /** Refused with access-denied for non-admin roles. */
  adminOnly: boolean;
  /** Changes metadata or the database schema: the request takes the metadata lock first. */
  mutates: boolean;
  /** Runs on the objects of any source (`OpContext.source`); other handlers are refused with another source. */
  servesSources?: boolean;
}

/** Defines a handler with its argument type inferred from `decode`. */
export const op = <A>(h: OperationHandler<A>): OperationHandler<A> => h;

export const SUCCESS = { message: 'success' } as const;
