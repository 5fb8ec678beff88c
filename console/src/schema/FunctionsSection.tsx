/**
 * The Data page's functions: every function of the user schemas with its arguments and result,
 * tracked or not; track (`track_function`, a root field) or untrack in one click.
 */
import { exportMetadata, refOf, sourceQuery, tableKey } from '../api';
import { sourceView, useSource } from '../sources';
import { DataTable, ErrorBox, Section, useAction, useLoad } from '../components';
import { functions } from './catalog';
import { Spinner } from './ChangeForm';

export function FunctionsSection() {
  const source = useSource();
  const data = useLoad(async () => {
    const [fns, md] = await Promise.all([functions(source), exportMetadata()]);
    return { fns, tracked: new Set<string>((sourceView(md, source).functions as any[]).map((f: any) => tableKey(refOf(f.function)))) };
  }, [source]);
  const act = useAction();
  const run = (fn: () => Promise<unknown>) => act.run(fn).then((ok) => ok && data.reload());
  const fns = data.data?.fns ?? [];
  return (
    <Section title="Functions">
      <ErrorBox error={data.error ?? act.error} />
      {data.loading && !data.data ? <Spinner label="loading functions…" /> : null}
      <DataTable
        columns={['schema', 'name', 'arguments', 'returns', 'tracked']}
        rows={fns.map((f) => [f.schema, f.name, f.args, f.returns, data.data!.tracked.has(`${f.schema}.${f.name}`) ? <span className="ok">tracked</span> : <span className="muted">no</span>])}
        actions={(i) => {
          const f = fns[i];
          const name = `${f.schema}.${f.name}`;
          return data.data!.tracked.has(name)
            ? <button type="button" className="danger" disabled={act.busy} aria-label={`Untrack function ${name}`} onClick={() => run(() => sourceQuery(source, 'untrack_function', { schema: f.schema, name: f.name }))}>Untrack</button>
            : <button type="button" disabled={act.busy} aria-label={`Track function ${name}`} onClick={() => run(() => sourceQuery(source, 'track_function', { schema: f.schema, name: f.name }))}>Track</button>;
        }}
      />
    </Section>
  );
}
