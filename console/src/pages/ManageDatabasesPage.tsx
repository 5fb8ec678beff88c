/**
 * Data → Manage databases (Hasura's "Data Manager"): every source with its connection (a URL, an
 * environment variable or connection parameters), read replicas, pool and transaction settings,
 * customization and health (get_inconsistent_metadata: a source that does not answer, or whose
 * database cannot be read, is reported there by the engine's probe); connect a database
 * (`add_source`), edit it (`update_source`), reload it (`reload_metadata` with `reload_sources`),
 * rename it (`rename_source`) and remove it (`drop_source`, with `cascade` confirmed). Every form
 * previews the operation it sends; the engine's refusal is shown as it gives it.
 */
import { useState } from 'react';
import { exportMetadata, query } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { buildOp, jsonField, opOf, OpPreview, sendOp, Spinner } from '../preview';
import { connectionKind, dataHref, DEFAULT_SOURCE, sourcesOf, type SourceInfo } from '../sources';

async function load() {
  const [md, inconsistent] = await Promise.all([exportMetadata(), query('get_inconsistent_metadata', {})]);
  // A source's problem: the source itself (`source <name>`), else the first object of it that is inconsistent.
  const health = new Map<string, string>();
  for (const o of inconsistent.inconsistent_objects ?? []) {
    const name = o.type === 'source' ? (o.definition?.name ?? String(o.name).replace(/^source /, '')) : o.definition?.source;
    if (typeof name === 'string' && !health.has(name)) health.set(name, o.reason ?? 'inconsistent');
  }
  return { sources: sourcesOf(md), health };
}

const ISOLATION = ['read-committed', 'repeatable-read', 'serializable'] as const;

interface Draft {
  name: string;
  via: 'url' | 'env' | 'parameters';
  url: string;
  env: string;
  host: string;
  port: string;
  username: string;
  password: string;
  database: string;
  maxConnections: string;
  idleTimeout: string;
  poolTimeout: string;
  isolation: string;
  prepared: boolean;
  replicas: string;
  rootPrefix: string;
  rootSuffix: string;
  namespace: string;
  typePrefix: string;
  typeSuffix: string;
}

const EMPTY: Draft = {
  name: '', via: 'url', url: '', env: '', host: '', port: '5432', username: '', password: '', database: '',
  maxConnections: '', idleTimeout: '', poolTimeout: '', isolation: 'read-committed', prepared: false, replicas: '',
  rootPrefix: '', rootSuffix: '', namespace: '', typePrefix: '', typeSuffix: '',
};

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** The form of an existing source. */
function draftOf(s: SourceInfo): Draft {
  const info = s.configuration?.connection_info ?? {};
  const url = info.database_url;
  const p = url?.connection_parameters ?? {};
  const pool = info.pool_settings ?? {};
  const rf = s.customization?.root_fields ?? {};
  const tn = s.customization?.type_names ?? {};
  return {
    name: s.name,
    via: typeof url === 'string' ? 'url' : url?.from_env !== undefined ? 'env' : 'parameters',
    url: typeof url === 'string' ? url : '',
    env: str(url?.from_env),
    host: str(p.host), port: str(p.port ?? 5432), username: str(p.username), password: str(p.password), database: str(p.database),
    maxConnections: str(pool.max_connections), idleTimeout: str(pool.idle_timeout), poolTimeout: str(pool.pool_timeout),
    isolation: info.isolation_level ?? 'read-committed',
    prepared: info.use_prepared_statements === true,
    replicas: s.configuration?.read_replicas ? JSON.stringify(s.configuration.read_replicas, null, 2) : '',
    rootPrefix: str(rf.prefix), rootSuffix: str(rf.suffix), namespace: str(rf.namespace), typePrefix: str(tn.prefix), typeSuffix: str(tn.suffix),
  };
}

const num = (label: string, text: string): number | undefined => {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new Error(`${label} is a number`);
  return n;
};

/** Hasura's `configuration` and `customization` of a form (an edit always sends `customization`: emptied fields remove it). */
function sourceArgs(d: Draft, editing: boolean): { configuration: any; customization?: any } {
  let database_url: unknown;
  if (d.via === 'url') {
    if (!d.url.trim()) throw new Error('give the database URL (postgres://user:password@host:5432/database)');
    database_url = d.url.trim();
  } else if (d.via === 'env') {
    if (!d.env.trim()) throw new Error('name the environment variable that holds the URL');
    database_url = { from_env: d.env.trim() };
  } else {
    if (!d.host.trim() || !d.database.trim() || !d.username.trim()) throw new Error('give the host, the database and the user name');
    database_url = { connection_parameters: { host: d.host.trim(), port: num('Port', d.port) ?? 5432, username: d.username.trim(), ...(d.password ? { password: d.password } : {}), database: d.database.trim() } };
  }
  const pool = Object.fromEntries(Object.entries({ max_connections: num('Max connections', d.maxConnections), idle_timeout: num('Idle timeout', d.idleTimeout), pool_timeout: num('Pool timeout', d.poolTimeout) }).filter(([, v]) => v !== undefined));
  const connection_info = { database_url, ...(Object.keys(pool).length ? { pool_settings: pool } : {}), isolation_level: d.isolation, use_prepared_statements: d.prepared };
  const replicas = jsonField('Read replicas', d.replicas);
  const configuration = { connection_info, ...(replicas !== undefined ? { read_replicas: replicas } : {}) };
  const part = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, v.trim()]));
  const root_fields = part({ namespace: d.namespace, prefix: d.rootPrefix, suffix: d.rootSuffix });
  const type_names = part({ prefix: d.typePrefix, suffix: d.typeSuffix });
  const customization = { ...(Object.keys(root_fields).length ? { root_fields } : {}), ...(Object.keys(type_names).length ? { type_names } : {}) };
  return { configuration, ...(editing || Object.keys(customization).length ? { customization } : {}) };
}

function SourceForm({ initial, editing, onDone, onCancel }: { initial: Draft; editing: boolean; onDone: () => void; onCancel?: () => void }) {
  const [d, setD] = useState<Draft>(initial);
  const act = useAction();
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD({ ...d, [k]: v });
  const built = buildOp(() => {
    if (!editing && !d.name.trim()) throw new Error('name the database');
    // A database's name changes with Rename, not here.
    return opOf(editing ? 'update_source' : 'add_source', { name: editing ? initial.name : d.name.trim(), ...sourceArgs(d, editing) });
  });
  const label = editing ? `Edit database ${initial.name}` : 'Connect a database';
  return (
    <form aria-label={label} onSubmit={(e) => { e.preventDefault(); if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => ok && onDone()); }}>
      <div className="row">
        {editing ? null : <TextField label="Database name" value={d.name} onChange={(v) => set('name', v)} placeholder="archive" />}
        <label className="field">Connect with
          <select value={d.via} onChange={(e) => set('via', e.target.value as Draft['via'])}>
            <option value="url">database URL</option>
            <option value="env">environment variable</option>
            <option value="parameters">connection parameters</option>
          </select>
        </label>
      </div>
      {d.via === 'url' ? <TextField label="Database URL" value={d.url} onChange={(v) => set('url', v)} placeholder="postgres://user:password@host:5432/database" /> : null}
      {d.via === 'env' ? <TextField label="Environment variable" value={d.env} onChange={(v) => set('env', v)} placeholder="ARCHIVE_DATABASE_URL" /> : null}
      {d.via === 'parameters' ? (
        <div className="row">
          <TextField label="Host" value={d.host} onChange={(v) => set('host', v)} />
          <TextField label="Port" value={d.port} onChange={(v) => set('port', v)} />
          <TextField label="User name" value={d.username} onChange={(v) => set('username', v)} />
          <TextField label="Password" type="password" value={d.password} onChange={(v) => set('password', v)} />
          <TextField label="Database" value={d.database} onChange={(v) => set('database', v)} />
        </div>
      ) : null}
      <fieldset className="row">
        <legend>Connection settings</legend>
        <TextField label="Max connections" type="number" value={d.maxConnections} onChange={(v) => set('maxConnections', v)} placeholder="50" />
        <TextField label="Idle timeout (s)" type="number" value={d.idleTimeout} onChange={(v) => set('idleTimeout', v)} />
        <TextField label="Pool timeout (s)" type="number" value={d.poolTimeout} onChange={(v) => set('poolTimeout', v)} placeholder="10" />
        <label className="field">Isolation level<select value={d.isolation} onChange={(e) => set('isolation', e.target.value)}>{ISOLATION.map((i) => <option key={i}>{i}</option>)}</select></label>
        <label className="inline-check"><input type="checkbox" checked={d.prepared} onChange={(e) => set('prepared', e.target.checked)} />Use prepared statements</label>
      </fieldset>
      <JsonEditor label="Read replicas" rows={2} value={d.replicas} onChange={(v) => set('replicas', v)} hint='optional: [{"database_url": {"from_env": "ARCHIVE_STANDBY_URL"}, "pool_settings": {"max_connections": 10}}]' />
      <fieldset className="row">
        <legend>GraphQL customization</legend>
        <TextField label="Root field namespace" value={d.namespace} onChange={(v) => set('namespace', v)} />
        <TextField label="Root field prefix" value={d.rootPrefix} onChange={(v) => set('rootPrefix', v)} placeholder="archive_" />
        <TextField label="Root field suffix" value={d.rootSuffix} onChange={(v) => set('rootSuffix', v)} />
        <TextField label="Type name prefix" value={d.typePrefix} onChange={(v) => set('typePrefix', v)} />
        <TextField label="Type name suffix" value={d.typeSuffix} onChange={(v) => set('typeSuffix', v)} />
      </fieldset>
      <OpPreview built={built} />
      <ErrorBox error={act.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={act.busy || !built.op}>{editing ? 'Update database' : 'Connect database'}</button>
        {onCancel ? <button type="button" onClick={onCancel}>Cancel</button> : null}
        <Spinner on={act.busy} />
      </div>
    </form>
  );
}

function RenameForm({ name, onDone, onCancel }: { name: string; onDone: (newName: string) => void; onCancel: () => void }) {
  const [next, setNext] = useState(name);
  const act = useAction();
  const op = opOf('rename_source', { name, new_name: next.trim() });
  return (
    <form aria-label={`Rename database ${name}`} className="row" onSubmit={(e) => { e.preventDefault(); void act.run(() => sendOp(op)).then((ok) => ok && onDone(next.trim())); }}>
      <TextField label="New database name" value={next} onChange={setNext} />
      <div className="field"><button type="submit" className="primary" disabled={act.busy || !next.trim() || next.trim() === name}>Rename</button></div>
      <div className="field"><button type="button" onClick={onCancel}>Cancel</button></div>
      <ErrorBox error={act.error} />
    </form>
  );
}

function RemoveForm({ source, onDone, onCancel }: { source: SourceInfo; onDone: () => void; onCancel: () => void }) {
  const [cascade, setCascade] = useState(false);
  const act = useAction();
  const op = opOf('drop_source', { name: source.name, cascade });
  const tables = source.tables.length;
  return (
    <form aria-label={`Remove database ${source.name}`} onSubmit={(e) => { e.preventDefault(); void act.run(() => sendOp(op)).then((ok) => ok && onDone()); }}>
      <p>
        Removing <strong>{source.name}</strong> removes its {tables} tracked table{tables === 1 ? '' : 's'} with their relationships, permissions, event
        triggers and functions from the metadata; the database itself is left as it is.
      </p>
      <label className="inline-check"><input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} />Also remove what depends on it (cascade)</label>
      <OpPreview built={{ op }} label="Metadata to send for the removal" />
      <ErrorBox error={act.error} />
      <div className="row">
        <button type="submit" className="danger" disabled={act.busy}>Remove database {source.name}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

export function ManageDatabasesPage() {
  const data = useLoad(load);
  const act = useAction();
  const [editing, setEditing] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [connecting, setConnecting] = useState(false);
  const sources = data.data?.sources ?? [];
  const byName = (n: string | null) => sources.find((s) => s.name === n);
  const done = () => {
    setEditing(null);
    setRenaming(null);
    setRemoving(null);
    setConnecting(false);
    data.reload();
  };
  const settings = (s: SourceInfo): string => {
    const info = s.configuration?.connection_info;
    const replicas = s.configuration?.read_replicas?.length ?? 0;
    const parts = replicas > 0 ? [`${replicas} read replica${replicas === 1 ? '' : 's'}`] : [];
    if (info) parts.unshift(`pool ${info.pool_settings?.max_connections ?? 50}`, info.isolation_level ?? 'read-committed', `prepared statements ${info.use_prepared_statements ? 'on' : 'off'}`);
    return parts.join(', ');
  };
  const customization = (s: SourceInfo): string => {
    const c = s.customization ?? {};
    return [c.root_fields?.namespace ? `namespace ${c.root_fields.namespace}` : '', c.root_fields?.prefix ? `prefix ${c.root_fields.prefix}` : '', c.root_fields?.suffix ? `suffix ${c.root_fields.suffix}` : '',
      c.type_names?.prefix ? `types ${c.type_names.prefix}…` : '', c.type_names?.suffix ? `types …${c.type_names.suffix}` : '', c.naming_convention ? c.naming_convention : ''].filter(Boolean).join(', ');
  };
  return (
    <div>
      <h1>Manage databases <Spinner on={data.loading} /></h1>
      <p><a href={dataHref(DEFAULT_SOURCE)}>← Data</a></p>
      <ErrorBox error={data.error} />
      <ErrorBox error={act.error} />
      <Section title="Databases" actions={<button type="button" onClick={() => setConnecting(true)}>Connect database</button>}>
        <DataTable
          columns={['database', 'connection', 'settings', 'customization', 'tables', 'health']}
          rows={sources.map((s) => {
            const problem = data.data!.health.get(s.name);
            return [
              <a key="n" href={dataHref(s.name)}>{s.name}</a>, `${s.kind}: ${connectionKind(s)}`, settings(s), customization(s), String(s.tables.length),
              problem ? <span key="h" className="error" aria-label={`health of ${s.name}`}>{problem}</span> : <span key="h" className="ok" aria-label={`health of ${s.name}`}>ok</span>,
            ];
          })}
          actions={(i) => {
            const s = sources[i];
            const reload = opOf('reload_metadata', { reload_sources: [s.name] });
            return (
              <>
                <button type="button" aria-label={`Reload ${s.name}`} disabled={act.busy} onClick={() => void act.run(() => sendOp(reload)).then((ok) => ok && data.reload())}>Reload</button>
                {s.name !== DEFAULT_SOURCE ? (
                  <>
                    <button type="button" aria-label={`Edit ${s.name}`} onClick={() => { done(); setEditing(s.name); }}>Edit</button>
                    <button type="button" aria-label={`Rename ${s.name}`} onClick={() => { done(); setRenaming(s.name); }}>Rename</button>
                    <button type="button" className="danger" aria-label={`Remove ${s.name}`} onClick={() => { done(); setRemoving(s.name); }}>Remove</button>
                  </>
                ) : null}
              </>
            );
          }}
        />
        {renaming && byName(renaming) ? <RenameForm key={renaming} name={renaming} onCancel={() => setRenaming(null)} onDone={done} /> : null}
        {removing && byName(removing) ? <RemoveForm key={removing} source={byName(removing)!} onCancel={() => setRemoving(null)} onDone={done} /> : null}
      </Section>
      {editing && byName(editing) ? (
        <Section title={`Edit database ${editing}`}>
          <SourceForm key={editing} initial={draftOf(byName(editing)!)} editing onCancel={() => setEditing(null)} onDone={done} />
        </Section>
      ) : null}
      {connecting || sources.length <= 1 ? (
        <Section title="Connect a database">
          <SourceForm initial={EMPTY} editing={false} onCancel={sources.length > 1 ? () => setConnecting(false) : undefined} onDone={done} />
        </Section>
      ) : null}
    </div>
  );
}
