/**
 * Several statements in ONE network round trip: a node-postgres "submittable" that writes, for each
 * statement, Parse (only when the connection has not prepared it yet) + Bind + Execute, and then a
 * single Sync — Postgres' pipelining. With no explicit BEGIN, everything before the Sync runs in one
 * implicit transaction: it commits at the Sync when every statement succeeded, and when one fails
 * Postgres skips the rest and rolls the whole pipeline back. That is exactly a mutation's
 * semantics (all root fields in one transaction, nothing partial), at the cost of one round trip
 * instead of BEGIN / statement / COMMIT.
 *
 * Each statement's answer is the first column of its first row as text (JSON built in Postgres),
 * or null; with `bytes`, the bytes Postgres sent for it (dataRowBytes.ts), never decoded to a string,
 * for an answer that goes to the socket as it came. On failure the index of the statement that failed comes back with the error, so the
 * caller can report the right field's path.
 *
 * Named statements share node-postgres' per-connection bookkeeping (`parsedStatements`), so the
 * engine's other prepared paths and this one never Parse the same name twice; ParseComplete
 * messages are matched to the statements in the order they were sent (a listener on the
 * connection, removed when the pipeline settles). With `prepare: false` every statement is parsed
 * as the unnamed statement, which each Parse replaces.
 */
import { encodeExtendedQuery, type ExtendedStatement } from './extendedQueryMessages.js';
import { prepareValue, preparedText, sendMessages, SubmittableBase, type PgConnection } from './pgSubmittable.js';
import { firstFieldBytes } from './dataRowBytes.js';

/** One statement of a pipeline. */
export interface PipelineStatement {
  /** Prepared-statement name, or '' for the unnamed statement (parsed every time). */
  name: string;
  text: string;
  values: readonly unknown[];
}

/** How a pipeline ended: every statement's answer, or the first failure and where it happened. */
export type PipelineOutcome =
  | { ok: true; results: Array<string | Buffer | null> }
  | { ok: false; index: number; error: Error };

/** A submittable for `client.query(...)` that runs `statements` as one pipeline (see above). */
export class PipelineQuery extends SubmittableBase {
  private readonly results: Array<string | Buffer | null>;
  private current = 0;
  private gotRow = false;
  private failure: { index: number; error: Error } | undefined;
  private settled = false;
  /** Named statements sent with a Parse whose ParseComplete has not arrived yet, in order. */
  private readonly pendingParses: PipelineStatement[] = [];
  /** Whether the ParseComplete listener is attached (only while Parses are pending). */
  private listening = false;
  private connection: PgConnection | undefined;
  private readonly onParseComplete = (): void => {
    const s = this.pendingParses.shift();
    if (s === undefined || this.connection === undefined) return;
    this.connection.parsedStatements[s.name] = s.text;
    delete this.connection.submittedNamedStatements[s.name];
  };

  constructor(
    private readonly statements: readonly PipelineStatement[],
    private readonly done: (outcome: PipelineOutcome) => void,
    /** Answers as the bytes Postgres sent (a string only where pg-protocol could not be patched). */
    private readonly bytes = false,
  ) {
    super();
    this.results = statements.map(() => null);
  }

  submit(connection: PgConnection): Error | null {
    this.connection = connection;
    // Serialize every value first: one that cannot be serialized fails before any statement is sent.
    let mapped: Array<Array<string | Buffer | null>>;
    try {
      mapped = this.statements.map((s) => s.values.map(prepareValue));
    } catch (err) {
      this.failure = { index: 0, error: err as Error };
      connection.sync();
      return null;
    }
    for (const s of this.statements) {
      if (s.name === '') continue;
      const previous = preparedText(connection, s.name);
      if (previous !== undefined && previous !== s.text) {
        return new Error(`Prepared statements must be unique - '${s.name}' was used for a different statement`);
      }
    }
    const parsing = new Set<string>();
    const encoded: ExtendedStatement[] = this.statements.map((s, i) => {
      const named = s.name !== '';
      const parse = !named || (preparedText(connection, s.name) === undefined && !parsing.has(s.name));
      if (parse && named) {
        parsing.add(s.name);
        connection.submittedNamedStatements[s.name] = s.text;
        this.pendingParses.push(s);
      }
      return { name: s.name, text: s.text, parse, values: mapped[i]! };
    });
    // Only a pipeline that parses listens (and so it is never queued behind another unit on a
    // shared connection: see sharedConnections.ts).
    if (this.pendingParses.length > 0) {
      this.listening = true;
      connection.on('parseComplete', this.onParseComplete);
    }
    sendMessages(connection, encodeExtendedQuery(encoded));
    return null;
  }

  /** Whether, on this connection, the pipeline would send no Parse (every statement named and known). */
  static parsesNothing(statements: readonly PipelineStatement[], connection: PgConnection): boolean {
    return statements.every((s) => s.name !== '' && preparedText(connection, s.name) !== undefined);
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.gotRow) return;
    this.gotRow = true;
    if (this.current >= this.results.length) return;
    const raw = this.bytes ? firstFieldBytes(msg) : undefined;
    this.results[this.current] = raw !== undefined ? raw : msg.fields[0] ?? null;
  }

  handleCommandComplete(): void {
    this.current++;
    this.gotRow = false;
  }

  handleEmptyQuery(): void {
    this.handleCommandComplete();
  }

  handleError(err: Error): void {
    // Statements after the failed one are skipped by Postgres, their Parses too: forget them. The
    // connection may already be gone (no ReadyForQuery will follow): settle now.
    this.failure ??= { index: Math.min(this.current, this.statements.length - 1), error: err };
    this.settle();
  }

  handleReadyForQuery(): void {
    this.settle();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.connection && this.listening) {
      this.connection.removeListener('parseComplete', this.onParseComplete);
      for (const s of this.pendingParses) delete this.connection.submittedNamedStatements[s.name];
      this.pendingParses.length = 0;
    }
    if (this.failure) this.done({ ok: false, ...this.failure });
    else this.done({ ok: true, results: this.results });
  }
}
