/**
 * What the engine's node-postgres "submittables" (jsonTextQuery.ts, pipelineQuery.ts) share: the
 * parts of pg's internal Connection they drive, pg's own parameter serializer, and a base class
 * with the protocol callbacks they ignore (row descriptions, COPY, suspended portals).
 */
import { createRequire } from 'node:module';
import pg from 'pg';

/** The parts of node-postgres' internal Connection a submittable drives. */
export interface PgConnection {
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
  stream: { writable?: boolean; write(b: Buffer): boolean };
  sync(): void;
  on(event: 'parseComplete', fn: () => void): void;
  removeListener(event: 'parseComplete', fn: () => void): void;
}

/**
 * The text a named statement has on this connection (parsed, or its Parse sent and not answered
 * yet), or undefined: such a statement needs no Parse of its own.
 */
export const preparedText = (connection: PgConnection, name: string): string | undefined =>
  connection.parsedStatements[name] ?? connection.submittedNamedStatements[name];

/** Writes encoded messages the way pg's `Connection._send` does (nothing when the socket is gone). */
export function sendMessages(connection: PgConnection, bytes: Buffer): void {
  if (connection.stream.writable === false) return;
  connection.stream.write(bytes);
}

/** node-postgres' own parameter serializer (dates, buffers, arrays, objects as JSON...), as pg.Query binds. */
export const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => string | Buffer | null };

/** The callbacks pg calls on every submittable that these ones do not need. */
export abstract class SubmittableBase {
  handleRowDescription(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
  handleCopyInResponse(connection: { sendCopyFail(msg: string): void }): void {
    connection.sendCopyFail('No source stream defined');
  }
}

// In pipeline mode (sharedConnections.ts) node-postgres refuses submittables that are not pg.Query
// instances, because a cursor keeps its portal open across round trips and would take the rows of
// the queries written behind it. Ours end with a Sync and keep no portal, so they get pg.Query's
// prototype (never its constructor). Every callback pg calls on a submittable is defined above or
// in the subclasses, so none of pg.Query's own code runs on them.
Object.setPrototypeOf(SubmittableBase.prototype, pg.Query.prototype);
