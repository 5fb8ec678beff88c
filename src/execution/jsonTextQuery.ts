/**
 * The hot path of a GraphQL query: ONE prepared statement whose first column of the first row is
 * JSON text, run as a node-postgres "submittable" instead of a `pg.Query`.
 *
 * Why: a `pg.Query` clones its config, builds a `Result`, asks Postgres to Describe the portal and
 * parses the RowDescription on every execution. Here the statement is parsed once per connection
 * (the same `parsedStatements` bookkeeping pg uses, so pg's own queries and this one share it), and
 * each execution is Bind + Execute + Sync: no Describe, the DataRow's first field (text format) is
 * the answer, handed over as the string node-postgres decoded — never parsed as JSON in Node — or,
 * with a `frame`, as one Buffer holding prefix + the bytes Postgres sent + suffix (dataRowBytes.ts).
 *
 * Errors (Postgres ErrorResponse, a broken connection) settle it with the error objects `pg.Query`
 * would give; a parameter that cannot be serialized fails before anything but a Sync is sent, so
 * the connection stays usable.
 */
import { frameText, framedFirstField, type JsonFrame } from './dataRowBytes.js';
import { encodeExtendedQuery } from './extendedQueryMessages.js';
import { prepareValue, preparedText, sendMessages, SubmittableBase, type PgConnection } from './pgSubmittable.js';

/**
 * A submittable for `client.query(...)`: settles with the first column of the first row (or null),
 * or with that column framed as one Buffer when a `frame` is given (SQL NULL or no row: `null`).
 */
export class JsonTextQuery extends SubmittableBase {
  /** pg reads these (named statement bookkeeping, error cleanup). */
  readonly name: string;
  readonly text: string;
  private value: string | Buffer | null = null;
  private gotRow = false;
  private error: Error | undefined;
  private settled = false;

  constructor(
    name: string,
    text: string,
    private readonly values: readonly unknown[],
    private readonly done: (err: Error | undefined, value: string | Buffer | null) => void,
    private readonly frame?: JsonFrame,
  ) {
    super();
    this.name = name;
    this.text = text;
  }

  submit(connection: PgConnection): Error | null {
    const previous = preparedText(connection, this.name);
    if (previous !== undefined && previous !== this.text) {
      return new Error(`Prepared statements must be unique - '${this.name}' was used for a different statement`);
    }
    // Serialize the values first: a value that cannot be serialized fails before anything is sent
    // (only a Sync, so the connection still answers ReadyForQuery and stays usable).
    let mapped: Array<string | Buffer | null>;
    try {
      mapped = this.values.map(prepareValue);
    } catch (err) {
      this.error = err as Error;
      connection.sync();
      return null;
    }
    const parse = previous === undefined;
    if (parse) connection.submittedNamedStatements[this.name] = this.text;
    sendMessages(connection, encodeExtendedQuery([{ name: this.name, text: this.text, parse, values: mapped }]));
    return null;
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.gotRow) return;
    this.gotRow = true;
    if (this.frame) this.value = framedFirstField(msg, this.frame) ?? frameText(msg.fields[0] ?? null, this.frame);
    else this.value = msg.fields[0] ?? null;
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}

  handleError(err: Error): void {
    // The connection may already be gone (no ReadyForQuery will follow): settle now.
    this.error ??= err;
    this.settle();
  }

  handleReadyForQuery(): void {
    this.settle();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.error) this.done(this.error, null);
    else this.done(undefined, this.frame && !this.gotRow ? frameText(null, this.frame) : this.value);
  }
}
