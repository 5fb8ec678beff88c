/**
 * What a metadata form will send, shown before it is sent: an operation (`{type, args}`, or a `bulk`
 * of several, which the engine runs in one transaction) built from the form's fields, previewed as
 * JSON under the form, and sent through api.ts. A field that does not parse (a JSON editor's text)
 * shows its problem in the preview instead, and the form cannot be sent.
 */
import type { ReactNode } from 'react';
import { bulk, query, sourceQuery } from './api';

export interface Op {
  type: string;
  args: unknown;
  /** The source of the objects the operation is about (Data, Permissions, Events pages). */
  source?: string;
}

/** One operation, or several as one atomic `bulk` (a single one stays itself). */
export const opOf = (type: string, args: unknown): Op => ({ type, args });
export const bulkOf = (ops: Op[]): Op => (ops.length === 1 ? ops[0] : { type: 'bulk', args: ops });

/** Builds the operation of a form; a field that does not parse is the error instead. */
export function buildOp(build: () => Op): { op?: Op; problem?: string } {
  try {
    return { op: build() };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

export const sendOp = (op: Op): Promise<any> => (op.type === 'bulk' ? bulk(op.args as Op[]) : op.source !== undefined ? sourceQuery(op.source, op.type, op.args) : query(op.type, op.args));

/** The JSON a form will send (or why it cannot be sent yet). */
export function OpPreview({ built, label = 'Metadata to send' }: { built: { op?: Op; problem?: string }; label?: string }) {
  return (
    <details className="preview" open>
      <summary>{label}</summary>
      {built.op
        ? <pre className="code" aria-label={label} tabIndex={0}>{JSON.stringify(built.op, null, 2)}</pre>
        : <p className="error">cannot be sent yet: {built.problem}</p>}
    </details>
  );
}

/** A one-click change (delete, drop, redeliver) shows its JSON in the confirmation before it is sent. */
export const confirmOp = (what: string, op: Op): boolean => confirm(`${what}\n\nThis sends:\n${JSON.stringify(op, null, 2)}`);

/** Shown while the console waits on the engine. */
export function Spinner({ on, label = 'waiting on the engine' }: { on: boolean; label?: string }): ReactNode {
  return on ? <span className="spinner" role="status" aria-label={label} /> : null;
}

/** A text field's JSON (empty → fallback), with the field's name in the error. */
export function jsonField(name: string, text: string, fallback: unknown = undefined): any {
  if (text.trim() === '') return fallback;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: ${(e as Error).message}`);
  }
}
