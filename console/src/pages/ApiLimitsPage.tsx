/**
 * API limits and introspection: `set_api_limits` / `remove_api_limits` (depth, node, batch and time
 * limits, each global and per role; the rate limit as JSON; `disabled`), and
 * `set_graphql_schema_introspection_options` (the roles without `__schema` / `__type`).
 */
import { useState } from 'react';
import { exportMetadata } from '../api';
import { ErrorBox, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { buildOp, confirmOp, jsonField, opOf, OpPreview, sendOp, Spinner, type Op } from '../preview';

const KINDS = [
  { key: 'depth_limit', label: 'Depth limit', hint: 'the most fields along one path, the leaf included' },
  { key: 'node_limit', label: 'Node limit', hint: 'the fields an operation selects, fragments expanded' },
  { key: 'batch_limit', label: 'Batch limit', hint: 'operations in one batched request' },
  { key: 'time_limit', label: 'Time limit (s)', hint: 'stored only: this engine does not apply it' },
] as const;
type Kind = (typeof KINDS)[number]['key'];
type Limits = Record<Kind, { global: string; perRole: string }> & { disabled: boolean; rate: string };

const limitsOf = (l: any): Limits => ({
  disabled: Boolean(l?.disabled),
  rate: l?.rate_limit ? JSON.stringify(l.rate_limit, null, 2) : '',
  ...(Object.fromEntries(KINDS.map(({ key }) => [key, { global: l?.[key]?.global === undefined ? '' : String(l[key].global), perRole: l?.[key]?.per_role ? JSON.stringify(l[key].per_role) : '' }])) as Record<Kind, { global: string; perRole: string }>),
});

function argsOf(f: Limits): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (f.disabled) out.disabled = true;
  for (const { key, label } of KINDS) {
    const perRole = jsonField(`${label} per role`, f[key].perRole);
    const g = f[key].global.trim();
    if (g === '' && perRole === undefined) continue;
    if (g !== '' && !Number.isFinite(Number(g))) throw new Error(`${label}: "${g}" is not a number`);
    out[key] = { ...(g === '' ? {} : { global: Number(g) }), ...(perRole === undefined ? {} : { per_role: perRole }) };
  }
  const rate = jsonField('Rate limit', f.rate);
  if (rate !== undefined) out.rate_limit = rate;
  return out;
}

/** The forms start from the stored values; they are mounted once the metadata is read (and again after a save). */
function LimitsForms({ md, onSaved }: { md: any; onSaved: () => void }) {
  const act = useAction();
  const [status, setStatus] = useState('');
  const [f, setF] = useState<Limits>(() => limitsOf(md.api_limits));
  const [roles, setRoles] = useState(() => ((md.graphql_schema_introspection?.disabled_for_roles ?? []) as string[]).join(', '));
  const set = buildOp(() => opOf('set_api_limits', argsOf(f)));
  const remove = opOf('remove_api_limits', {});
  const introspection = opOf('set_graphql_schema_introspection_options', { disabled_for_roles: roles.split(',').map((r) => r.trim()).filter(Boolean) });
  const run = (op: Op, done: string) => act.run(() => sendOp(op)).then((ok) => { if (ok) { setStatus(done); onSaved(); } });
  const setKind = (key: Kind, part: 'global' | 'perRole', v: string) => setF({ ...f, [key]: { ...f[key], [part]: v } });
  return (
    <>
      <ErrorBox error={act.error} />
      {status ? <p className="ok" role="status">{status}</p> : null}
      <Section title="Limits">
        <p className="hint">For a role: its per-role entry, else the global one, else the --query-*-limit flag. Admin is limited only by an explicit per-role "admin" entry.</p>
        <form aria-label="API limits" onSubmit={(e) => { e.preventDefault(); if (set.op) void run(set.op, 'API limits set'); }}>
          {KINDS.map(({ key, label, hint }) => (
            <div key={key} className="row">
              <TextField label={`${label}: global`} type="number" value={f[key].global} onChange={(v) => setKind(key, 'global', v)} />
              <TextField label={`${label}: per role (JSON)`} value={f[key].perRole} onChange={(v) => setKind(key, 'perRole', v)} placeholder='{"user": 5}' />
              <span className="hint">{hint}</span>
            </div>
          ))}
          <JsonEditor label="Rate limit (JSON)" value={f.rate} onChange={(v) => setF({ ...f, rate: v })} rows={2} hint='stored only: {"global": {"max_reqs_per_min": 100, "unique_params": "IP"}, "per_role": {}}' />
          <label><input type="checkbox" checked={f.disabled} onChange={(e) => setF({ ...f, disabled: e.target.checked })} /> disabled (keep the limits, do not apply them)</label>
          <OpPreview built={set} />
          <button type="submit" className="primary" disabled={act.busy || !set.op}>Set API limits</button>{' '}
          <button type="button" className="danger" disabled={act.busy || !md.api_limits} onClick={() => confirmOp('Remove all API limits?', remove) && void run(remove, 'API limits removed')}>Remove API limits</button>
          <Spinner on={act.busy} />
        </form>
      </Section>
      <Section title="Introspection">
        <form aria-label="Introspection options" onSubmit={(e) => { e.preventDefault(); void run(introspection, 'introspection options set'); }}>
          <TextField label="Roles without introspection (comma-separated)" value={roles} onChange={setRoles} placeholder="user, anonymous" />
          <OpPreview built={{ op: introspection }} />
          <button type="submit" className="primary" disabled={act.busy}>Set introspection options</button>
        </form>
      </Section>
    </>
  );
}

export function ApiLimitsPage() {
  const md = useLoad(exportMetadata);
  // Mounted once the metadata is first read; a save reads it again while the forms (and their status) stay.
  return (
    <div>
      <h1>API limits <Spinner on={md.loading} /></h1>
      <ErrorBox error={md.error} />
      {md.data ? <LimitsForms md={md.data} onSaved={md.reload} /> : null}
    </div>
  );
}
