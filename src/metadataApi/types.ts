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
  /**
   * Metadata, snapshot and cache as changed by the operations run so far in this request; for a
   * command on another source, the view of that source (sourceWork.ts).
   */
  work: Work;
  /** The Postgres source the operation runs on (`default`, or the `source` the command named). */
  source: string;
  /** JSON path of this operation's `args` for errors found while running (`$.args`, `$.args[2].args`). */
  path: string;
}

/** What an operation reads and changes of the request's state (`WorkingState`, or a `SourceWork` over it). */
export type Work = Pick<
  WorkingState,
  'metadata' | 'draft' | 'snapshot' | 'schemaChanged' | 'result' | 'cache' | 'buildFor' | 'change' | 'adopt'
  | 'remoteInputs' | 'refetchRemotes' | 'reload' | 'sourcesOf' | 'sourceClient' | 'finishSources' | 'metadataChanged' | 'cacheChanged'
>;

export interface OperationHandler<A = unknown> {
  /** Decodes `args` (path `$` = the args root, as Hasura's tagged decoding reports it). */
  decode(args: unknown, path: string, version: number): A;
  run(ctx: OpContext, args: A): Promise<unknown>;
  /** Refused with access-denied for non-admin roles. */
  adminOnly: boolean;
  /** Changes metadata or the database schema: the request takes the metadata lock first. */
  mutates: boolean;
}

/** Defines a handler with its argument type inferred from `decode`. */
export const op = <A>(h: OperationHandler<A>): OperationHandler<A> => h;

export const SUCCESS = { message: 'success' } as const;
