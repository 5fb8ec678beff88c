/**
 * The explorer of GraphiQL (a plugin in its side pane), as Hasura's console has: the schema's root
 * fields as a tree, each field with a checkbox; checking one opens its arguments (scalars typed in,
 * input objects such as `where` / `order_by` opened field by field) and its sub-fields, and the
 * query editor is rewritten with the operation the checked boxes make. The other way too: what is
 * typed in the editor checks the boxes (its first operation; fragments, aliases, directives and
 * variable definitions are not shown, and a note says a click would drop them). Built on the schema
 * GraphiQL introspected with the current headers, so it shows what the role in the headers may use.
 */
import { useEffect, useRef, useState } from 'react';
import {
  getNamedType, isEnumType, isInputObjectType, isLeafType, isObjectType, isInterfaceType, Kind as AstKind, parse, print, type GraphQLArgument, type GraphQLField,
  type GraphQLInputField, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema, type SelectionSetNode, type ValueNode,
} from 'graphql';
import { useEditorContext, useSchemaContext, type GraphiQLPlugin } from '@graphiql/react';

type Kind = 'query' | 'mutation' | 'subscription';

/** What is checked: field paths (`author.articles.title`), argument paths (`author(where.id._eq`) with their typed text. */
export interface Selection {
  fields: Set<string>;
  args: Map<string, string>;
}

const RAW_SCALARS = new Set(['Int', 'Float', 'Boolean']);

/** The GraphQL literal for typed text of an input of named type `t` (empty: left out). */
export function literalOf(text: string, t: GraphQLNamedType): string | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  if (s.startsWith('$')) return s;
  if (isEnumType(t) || RAW_SCALARS.has(t.name)) return s;
  return JSON.stringify(text);
}

const fieldsOf = (t: GraphQLNamedType): Record<string, GraphQLField<unknown, unknown>> => (isObjectType(t) || isInterfaceType(t) ? t.getFields() : {});

function inputText(path: string, fields: readonly GraphQLInputField[] | readonly GraphQLArgument[], sel: Selection): string[] {
  const out: string[] = [];
  for (const f of fields) {
    const p = `${path}.${f.name}`;
    const t = getNamedType(f.type);
    if (isInputObjectType(t)) {
      if (!sel.fields.has(p)) continue;
      const inner = inputText(p, Object.values(t.getFields()), sel);
      out.push(`${f.name}: {${inner.join(', ')}}`);
    } else {
      const v = literalOf(sel.args.get(p) ?? '', t);
      if (sel.fields.has(p) && v !== undefined) out.push(`${f.name}: ${v}`);
    }
  }
  return out;
}

function selectionText(type: GraphQLNamedType, path: string, sel: Selection, indent: string): string[] {
  const out: string[] = [];
  for (const f of Object.values(fieldsOf(type))) {
    const p = path ? `${path}.${f.name}` : f.name;
    if (!sel.fields.has(p)) continue;
    const args = inputText(`${p}(`, f.args, sel);
    const head = `${indent}${f.name}${args.length ? `(${args.join(', ')})` : ''}`;
    const t = getNamedType(f.type);
    if (isLeafType(t)) out.push(head);
    else {
      const inner = selectionText(t, p, sel, `${indent}  `);
      out.push(`${head} {`, ...(inner.length ? inner : [`${indent}  __typename`]), `${indent}}`);
    }
  }
  return out;
}

/** The operation text for what is checked under the root type of `kind`. */
export function operationText(schema: GraphQLSchema, kind: Kind, sel: Selection): string {
  const root = kind === 'query' ? schema.getQueryType() : kind === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return '';
  const body = selectionText(root, '', sel, '  ');
  return body.length ? `${kind} MyQuery {\n${body.join('\n')}\n}\n` : '';
}

/**
 * The boxes an operation text checks: its first operation's fields and arguments. `lossy` when the
 * text has what the explorer cannot show; undefined when it does not parse.
 */
export function selectionFromQuery(text: string): { kind: Kind; sel: Selection; lossy: boolean } | undefined {
  let doc;
  try {
    doc = parse(text);
  } catch {
    return undefined;
  }
  const ops = doc.definitions.filter((d) => d.kind === AstKind.OPERATION_DEFINITION);
  const op = ops[0];
  if (!op || op.kind !== AstKind.OPERATION_DEFINITION) return undefined;
  const sel: Selection = { fields: new Set(), args: new Map() };
  let lossy = doc.definitions.length > 1 || (op.variableDefinitions?.length ?? 0) > 0 || (op.directives?.length ?? 0) > 0;
  const value = (v: ValueNode, path: string): void => {
    sel.fields.add(path);
    if (v.kind === AstKind.OBJECT) for (const f of v.fields) value(f.value, `${path}.${f.name.value}`);
    else if (v.kind === AstKind.STRING) sel.args.set(path, v.value);
    else if (v.kind === AstKind.VARIABLE) sel.args.set(path, `$${v.name.value}`);
    else if (v.kind === AstKind.LIST && v.values.length === 1 && v.values[0].kind === AstKind.OBJECT) value(v.values[0], path);
    else {
      if (v.kind === AstKind.LIST) lossy = true;
      sel.args.set(path, print(v));
    }
  };
  const walk = (set: SelectionSetNode, path: string): void => {
    for (const s of set.selections) {
      if (s.kind !== AstKind.FIELD) {
        lossy = true;
        continue;
      }
      if (s.name.value === '__typename') continue;
      if (s.alias || (s.directives?.length ?? 0) > 0) lossy = true;
      const p = path ? `${path}.${s.name.value}` : s.name.value;
      sel.fields.add(p);
      for (const a of s.arguments ?? []) value(a.value, `${p}(.${a.name.value}`);
      if (s.selectionSet) walk(s.selectionSet, p);
    }
  };
  walk(op.selectionSet, '');
  return { kind: op.operation as Kind, sel, lossy };
}

function InputNode({ path, field, sel, toggle, setArg }: { path: string; field: GraphQLInputField | GraphQLArgument; sel: Selection; toggle: (p: string, on: boolean, t?: GraphQLNamedType) => void; setArg: (p: string, v: string) => void }) {
  const p = `${path}.${field.name}`;
  const t = getNamedType(field.type);
  const on = sel.fields.has(p);
  return (
    <li>
      <label className="ex-arg"><input type="checkbox" aria-label={`argument ${p.replace('(.', '(')}`} checked={on} onChange={(e) => toggle(p, e.target.checked)} /> {field.name}<span className="muted">: {String(field.type)}</span></label>
      {on && !isInputObjectType(t) ? (
        isEnumType(t) ? (
          <select aria-label={`value of ${p.replace('(.', '(')}`} value={sel.args.get(p) ?? ''} onChange={(e) => setArg(p, e.target.value)}>
            <option value="" />
            {t.getValues().map((v) => <option key={v.name} value={v.name}>{v.name}</option>)}
          </select>
        ) : <input aria-label={`value of ${p.replace('(.', '(')}`} value={sel.args.get(p) ?? ''} onChange={(e) => setArg(p, e.target.value)} placeholder={t.name} />
      ) : null}
      {on && isInputObjectType(t) ? <ul>{Object.values(t.getFields()).map((f) => <InputNode key={f.name} path={p} field={f} sel={sel} toggle={toggle} setArg={setArg} />)}</ul> : null}
    </li>
  );
}

function FieldNode({ path, field, sel, toggle, setArg }: { path: string; field: GraphQLField<unknown, unknown>; sel: Selection; toggle: (p: string, on: boolean, t?: GraphQLNamedType) => void; setArg: (p: string, v: string) => void }) {
  const p = path ? `${path}.${field.name}` : field.name;
  const t = getNamedType(field.type);
  const on = sel.fields.has(p);
  return (
    <li>
      <label className={isLeafType(t) ? 'ex-leaf' : 'ex-field'}><input type="checkbox" aria-label={`field ${p}`} checked={on} onChange={(e) => toggle(p, e.target.checked, t)} /> {field.name}</label>
      {on && (field.args.length > 0 || !isLeafType(t)) ? (
        <ul>
          {field.args.map((a) => <InputNode key={a.name} path={`${p}(`} field={a} sel={sel} toggle={toggle} setArg={setArg} />)}
          {Object.values(fieldsOf(t)).map((f) => <FieldNode key={f.name} path={p} field={f} sel={sel} toggle={toggle} setArg={setArg} />)}
        </ul>
      ) : null}
    </li>
  );
}

function Explorer() {
  const { schema, isFetching } = useSchemaContext({ nonNull: true });
  const { queryEditor } = useEditorContext({ nonNull: true });
  const [kind, setKind] = useState<Kind>('query');
  const [sel, setSel] = useState<Selection>({ fields: new Set(), args: new Map() });
  const [lossy, setLossy] = useState(false);
  // True while the explorer itself writes the editor (its change is not read back).
  const writing = useRef(false);
  useEffect(() => {
    if (!queryEditor) return undefined;
    const read = () => {
      if (writing.current) return;
      const text = queryEditor.getValue();
      if (text.trim() === '') {
        setSel({ fields: new Set(), args: new Map() });
        setLossy(false);
        return;
      }
      const r = selectionFromQuery(text);
      if (!r) return;
      setKind(r.kind);
      setSel(r.sel);
      setLossy(r.lossy);
    };
    read();
    queryEditor.on('change', read);
    return () => queryEditor.off('change', read);
  }, [queryEditor]);
  if (!schema) return <p className="muted" role="status">{isFetching ? 'loading the schema…' : 'no schema'}</p>;
  const write = (next: Selection, k: Kind = kind) => {
    setSel(next);
    setLossy(false);
    writing.current = true;
    try {
      queryEditor?.setValue(operationText(schema, k, next));
    } finally {
      writing.current = false;
    }
  };
  const toggle = (p: string, on: boolean, t?: GraphQLNamedType) => {
    const fields = new Set(sel.fields);
    if (on) {
      fields.add(p);
      // A checked object field starts with its first leaf (its id, as a rule) so the query is valid.
      if (t && !isLeafType(t)) {
        const leaves = Object.values(fieldsOf(t)).filter((f) => isLeafType(getNamedType(f.type)) && f.args.every((a) => !String(a.type).endsWith('!')));
        const first = leaves.find((f) => f.name === 'id') ?? leaves[0];
        if (first && ![...fields].some((x) => x.startsWith(`${p}.`))) fields.add(`${p}.${first.name}`);
      }
    } else {
      for (const x of [...fields]) if (x === p || x.startsWith(`${p}.`) || x.startsWith(`${p}(`)) fields.delete(x);
    }
    write({ fields, args: sel.args });
  };
  const setArg = (p: string, v: string) => write({ fields: sel.fields, args: new Map(sel.args).set(p, v) });
  const root: GraphQLObjectType | null | undefined = kind === 'query' ? schema.getQueryType() : kind === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return (
    <div className="explorer">
      <div className="graphiql-doc-explorer-title">Explorer</div>
      <label className="ex-kind">operation{' '}
        <select aria-label="Explorer operation" value={kind} onChange={(e) => { const k = e.target.value as Kind; setKind(k); write({ fields: new Set(), args: new Map() }, k); }}>
          <option value="query">query</option>
          {schema.getMutationType() ? <option value="mutation">mutation</option> : null}
          {schema.getSubscriptionType() ? <option value="subscription">subscription</option> : null}
        </select>
      </label>
      {lossy ? <p className="hint" role="note">The query has parts the explorer does not show (fragments, aliases, directives, variable definitions, more operations): a click here rewrites it without them.</p> : null}
      <ul className="ex-tree" aria-label="Explorer fields">
        {root ? Object.values(root.getFields()).map((f) => <FieldNode key={f.name} path="" field={f} sel={sel} toggle={toggle} setArg={setArg} />) : <li className="muted">none</li>}
      </ul>
    </div>
  );
}

const ExplorerIcon = () => (
  <svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
    <path d="M4 5h6M4 12h6M4 19h6M14 5h6M16 12h4M16 19h4M10 5v14" />
  </svg>
);

export const explorerPlugin: GraphiQLPlugin = { title: 'Explorer', icon: ExplorerIcon, content: Explorer };
