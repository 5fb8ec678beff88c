/**
 * The entity-relationship diagram: tracked tables and the relationships between them, drawn as SVG
 * from export_metadata and the catalog's columns (layout in schema/erdLayout.ts). Drag to pan, the
 * mouse wheel (or + / −, arrow keys) to zoom and move, click or Enter on a table to open it. Only the
 * tables and edges inside the viewport are in the DOM; zoomed out, tables show their names only.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { exportMetadata, runSql } from '../api';
import { ErrorBox, useLoad } from '../components';
import { Spinner } from '../schema/ChangeForm';
import { foreignKeys } from '../schema/catalog';
import { dataHref, sourceView, useSource } from '../sources';
import { buildErd, exitPoint, HEAD_H, intersects, MAX_ROWS, ROW_H, type ErdModel, type ErdTable } from '../schema/erdLayout';

const COLUMNS_SQL = `SELECT coalesce(json_agg(json_build_object('k', n.nspname || '.' || c.relname, 'c',
   (SELECT json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))), '[]')::text
 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'hdb_catalog') AND n.nspname NOT LIKE 'pg\\_%'`;

async function load(source: string): Promise<ErdModel> {
  const [md, cols, fks] = await Promise.all([exportMetadata().then((m) => sourceView(m, source)), runSql(COLUMNS_SQL, { readOnly: true, source }), foreignKeys(source)]);
  const list = JSON.parse(cols.rows[0]?.[0] ?? '[]') as Array<{ k: string; c: Array<[string, string]> | null }>;
  const columns = new Map(list.map((t) => [t.k, (t.c ?? []).map(([name, type]) => ({ name, type }))]));
  return buildErd(md.tables ?? [], columns, fks);
}

const open = (source: string, t: ErdTable) => {
  window.location.hash = dataHref(source, t.ref.schema, t.ref.name);
};

export function ErdPage() {
  const source = useSource();
  const { data, error, loading } = useLoad(() => load(source), [source]);
  return (
    <div>
      <h1>Entity-relationship diagram</h1>
      <p><a href={dataHref(source)}>← all tables</a>{data ? <span className="muted"> · {data.tables.length} tables, {data.edges.length} relationships</span> : null}</p>
      <ErrorBox error={error} />
      {loading && !data ? <Spinner label="loading the schema…" /> : null}
      {data ? data.tables.length === 0 ? <p className="muted">No tracked table yet.</p> : <Diagram model={data} /> : null}
    </div>
  );
}

function Diagram({ model }: { model: ErdModel }) {
  const source = useSource();
  const wrap = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const [view, setView] = useState({ tx: 20, ty: 20, k: 1 });
  const [size, setSize] = useState({ w: 1000, h: 600 });
  const drag = useRef<{ x: number; y: number; tx: number; ty: number; moved: boolean } | null>(null);
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    const el = wrap.current!;
    const measure = () => setSize({ w: el.clientWidth, h: el.clientHeight });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const zoomAt = (factor: number, mx: number, my: number) => setView((v) => {
    const k = Math.min(4, Math.max(0.05, v.k * factor));
    return { k, tx: mx - ((mx - v.tx) * k) / v.k, ty: my - ((my - v.ty) * k) / v.k };
  });

  useEffect(() => {
    // A native listener: React's wheel listener is passive and could not keep the page from scrolling.
    const el = svg.current!;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  const fit = () => {
    const k = Math.min(1, Math.max(0.05, Math.min((size.w - 40) / Math.max(1, model.width), (size.h - 40) / Math.max(1, model.height))));
    setView({ k, tx: 20, ty: 20 });
  };

  const port = { x: -view.tx / view.k, y: -view.ty / view.k, w: size.w / view.k, h: size.h / view.k };
  const visible = useMemo(() => model.tables.filter((t) => intersects(port, t.x, t.y, t.w, t.h)), [model, port.x, port.y, port.w, port.h]);
  const edges = useMemo(() => model.edges.filter((e) => {
    const a = model.byKey.get(e.from)!;
    const b = model.byKey.get(e.to)!;
    const x = Math.min(a.x, b.x);
    const y = Math.min(a.y, b.y);
    return intersects(port, x, y, Math.max(a.x + a.w, b.x + b.w) - x, Math.max(a.y + a.h, b.y + b.h) - y);
  }), [model, port.x, port.y, port.w, port.h]);
  const detailed = view.k >= 0.45;

  return (
    <div className="erd-wrap" ref={wrap}>
      <div className="erd-tools">
        <button type="button" onClick={() => zoomAt(1.25, size.w / 2, size.h / 2)}>Zoom in</button>
        <button type="button" onClick={() => zoomAt(0.8, size.w / 2, size.h / 2)}>Zoom out</button>
        <button type="button" onClick={fit}>Fit</button>
        <button type="button" onClick={() => setView({ tx: 20, ty: 20, k: 1 })}>Reset</button>
      </div>
      <svg
        ref={svg}
        className={dragging ? 'dragging' : undefined}
        role="img"
        aria-label="Entity-relationship diagram"
        tabIndex={0}
        data-zoom={view.k.toFixed(3)}
        onKeyDown={(e) => {
          const step = 60;
          const moves: Record<string, [number, number]> = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
          if (moves[e.key]) {
            e.preventDefault();
            setView((v) => ({ ...v, tx: v.tx + moves[e.key][0], ty: v.ty + moves[e.key][1] }));
          } else if (e.key === '+' || e.key === '=') zoomAt(1.25, size.w / 2, size.h / 2);
          else if (e.key === '-') zoomAt(0.8, size.w / 2, size.h / 2);
        }}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          drag.current = { x: e.clientX, y: e.clientY, tx: view.tx, ty: view.ty, moved: false };
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          if (!d) return;
          const dx = e.clientX - d.x;
          const dy = e.clientY - d.y;
          if (!d.moved && Math.hypot(dx, dy) < 4) return;
          if (!d.moved) {
            d.moved = true;
            setDragging(true);
            svg.current?.setPointerCapture(e.pointerId);
          }
          setView((v) => ({ ...v, tx: d.tx + dx, ty: d.ty + dy }));
        }}
        onPointerUp={(e) => {
          const d = drag.current;
          drag.current = null;
          setDragging(false);
          if (d?.moved) svg.current?.releasePointerCapture(e.pointerId);
          else {
            // A click without a drag: open the table under the pointer, if any.
            const el = (e.target as Element).closest('[data-table]');
            const t = el ? model.byKey.get(el.getAttribute('data-table')!) : undefined;
            if (t) open(source, t);
          }
        }}
      >
        <g transform={`translate(${view.tx},${view.ty}) scale(${view.k})`}>
          {model.schemas.filter((s) => intersects(port, s.x, s.y, 400, 30)).map((s) => (
            <g key={s.name} className="erd-schema"><text x={s.x} y={s.y + 20}>schema {s.name}</text></g>
          ))}
          {edges.map((e) => <Edge key={`${e.from}|${e.to}`} a={model.byKey.get(e.from)!} b={model.byKey.get(e.to)!} label={e.label} detailed={detailed} />)}
          {visible.map((t) => <TableBox key={t.key} t={t} detailed={detailed} />)}
        </g>
      </svg>
    </div>
  );
}

function Edge({ a, b, label, detailed }: { a: ErdTable; b: ErdTable; label: string; detailed: boolean }) {
  if (a === b) {
    const x = a.x + a.w;
    const y = a.y + HEAD_H / 2;
    return <g><path className="erd-edge" d={`M${x},${y} c40,-20 40,40 0,30`} />{detailed ? <text x={x + 30} y={y} fontSize={11}>{label}</text> : null}</g>;
  }
  const p = exitPoint(a, { x: b.x + b.w / 2, y: b.y + b.h / 2 });
  const q = exitPoint(b, { x: a.x + a.w / 2, y: a.y + a.h / 2 });
  return (
    <g data-edge={`${a.key} ${b.key}`}>
      <line className="erd-edge" x1={p.x} y1={p.y} x2={q.x} y2={q.y} />
      <circle cx={p.x} cy={p.y} r={3} fill="#667085" />
      <circle cx={q.x} cy={q.y} r={3} fill="#667085" />
      {detailed ? <text x={(p.x + q.x) / 2 + 4} y={(p.y + q.y) / 2 - 4} fontSize={11} fill="#475467">{label}</text> : null}
    </g>
  );
}

/** Text cut to what fits in a box (about 6.6 px a character at 12 px), with an ellipsis. */
const fit = (s: string, room: number): string => (s.length <= room ? s : `${s.slice(0, Math.max(1, room - 1))}…`);
const ROOM = 29;

function TableBox({ t, detailed }: { t: ErdTable; detailed: boolean }) {
  const source = useSource();
  const shown = t.columns.slice(0, MAX_ROWS);
  return (
    <g
      className="erd-table"
      data-table={t.key}
      role="link"
      tabIndex={0}
      aria-label={`Open table ${t.key}`}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          open(source, t);
        }
      }}
      style={{ cursor: 'pointer' }}
    >
      <rect className="box" x={t.x} y={t.y} width={t.w} height={detailed ? t.h : HEAD_H} rx={4} />
      <rect className="head" x={t.x} y={t.y} width={t.w} height={HEAD_H} rx={4} />
      <text className="title" x={t.x + 8} y={t.y + 16}>{fit(t.ref.schema === 'public' ? t.ref.name : t.key, ROOM)}</text>
      {detailed ? shown.map((c, i) => (
        <text key={c.name} x={t.x + 8} y={t.y + HEAD_H + 13 + i * ROW_H}>
          {fit(c.name, ROOM)}{c.name.length < ROOM - 2 ? <tspan fill="#98a2b3"> {fit(c.type, ROOM - c.name.length - 1)}</tspan> : null}
        </text>
      )) : null}
      {detailed && t.columns.length > MAX_ROWS ? <text x={t.x + 8} y={t.y + HEAD_H + 13 + MAX_ROWS * ROW_H} fill="#98a2b3">… {t.columns.length - MAX_ROWS} more</text> : null}
    </g>
  );
}
