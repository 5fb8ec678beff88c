/**
 * GraphiQL on /v1/graphql as a team uses it: the request headers editor above it (requestHeaders.tsx:
 * role, session variables, a JWT, the admin secret on or off; in localStorage, mirrored with
 * GraphiQL's JSON headers tab), the explorer (queryExplorer.tsx) and GraphiQL's own history and docs
 * in the side pane, "Analyze" (the SQL and plan tree of each root field, analyzePanel.tsx), and
 * subscriptions over a WebSocket (graphql-transport-ws, the headers in `connection_init`, as the
 * engine reads them).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { GraphiQL } from 'graphiql';
import { ToolbarButton, useEditorContext, useSchemaContext } from '@graphiql/react';
import type { Fetcher, FetcherParams, FetcherOpts } from '@graphiql/toolkit';
import { createClient } from 'graphql-ws';
import { adminHeaders, explainGraphql, exportMetadata } from '../api';
import { useLoad } from '../components';
import { AnalyzePanel, type Analysis } from '../analyzePanel';
import { explorerPlugin } from '../queryExplorer';
import { headersObject, RequestHeadersEditor, rowsFromJson, sessionOf, useRequestHeaders } from '../requestHeaders';
import { rolesOf, sessionVariablesOf } from '../tableCatalog';

const isSubscription = (p: FetcherParams): boolean => {
  const src = p.query.replace(/#[^\n]*/g, '');
  const ops = [...src.matchAll(/\b(query|mutation|subscription)\b\s*([_A-Za-z][_0-9A-Za-z]*)?/g)];
  const op = p.operationName ? ops.find((m) => m[2] === p.operationName) : ops[0];
  return op?.[1] === 'subscription';
};

/** The fetcher GraphiQL runs operations with: the headers of its headers tab, plus the admin secret when it is on. */
const makeFetcher = (sendAdminSecret: boolean): Fetcher => (params: FetcherParams, opts?: FetcherOpts) => {
  const headers: Record<string, string> = { ...(sendAdminSecret ? adminHeaders() : {}), ...((opts?.headers ?? {}) as Record<string, string>) };
  if (!isSubscription(params)) {
    return fetch('/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(params) }).then((r) => r.json());
  }
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/graphql`;
  const client = createClient({ url, connectionParams: { headers }, lazy: true });
  // An async iterable of results, ended (and the socket closed) when GraphiQL stops listening.
  return {
    [Symbol.asyncIterator]() {
      const queue: unknown[] = [];
      let wake: (() => void) | undefined;
      let done = false;
      const push = (v: unknown) => {
        queue.push(v);
        wake?.();
      };
      const stop = client.subscribe(params as never, {
        next: push,
        error: (e) => {
          push({ errors: [{ message: e instanceof Error ? e.message : (e as CloseEvent)?.reason || JSON.stringify(e) }] });
          done = true;
        },
        complete: () => {
          done = true;
          wake?.();
        },
      });
      return {
        async next() {
          while (queue.length === 0 && !done) await new Promise<void>((r) => (wake = r));
          if (queue.length > 0) return { value: queue.shift(), done: false };
          void client.dispose();
          return { value: undefined, done: true };
        },
        async return() {
          stop();
          void client.dispose();
          done = true;
          return { value: undefined, done: true };
        },
      };
    },
  } as AsyncIterable<unknown> as never;
};

/** The toolbar's "Analyze": hands the editors' current operation to the page. */
function AnalyzeButton({ onAnalyze }: { onAnalyze: (query: string, variables: string, operationName: string | undefined) => void }) {
  const { queryEditor, variableEditor } = useEditorContext({ nonNull: true });
  return (
    <ToolbarButton label="Analyze (generated SQL and plan)" onClick={() => onAnalyze(queryEditor?.getValue() ?? '', variableEditor?.getValue() ?? '', queryEditor?.operationName ?? undefined)}>
      <svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true"><path d="M12 3v5M12 8H6v5M12 8h6v5M6 13v3M18 13v3M4 16h4v4H4zM16 16h4v4h-4z" /></svg>
    </ToolbarButton>
  );
}

/**
 * Introspects again when the request headers change (after GraphiQL copied them into its headers
 * tab), so the explorer, the docs and completion show the schema of the role in the headers.
 */
function SchemaFollowsHeaders({ headers }: { headers: string }) {
  const { introspect } = useSchemaContext({ nonNull: true });
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return undefined;
    }
    const t = setTimeout(introspect, 400);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [headers]);
  return null;
}

export function GraphiqlPage() {
  const md = useLoad(exportMetadata);
  const empty = md.data && !(md.data.tables?.length || md.data.remote_schemas?.length || md.data.actions?.length);
  const [headers, setHeaders] = useRequestHeaders();
  // GraphiQL keeps the first onEditHeaders it was given: it reads the current headers through this.
  const headersRef = useRef(headers);
  headersRef.current = headers;
  const fetcher = useMemo(() => makeFetcher(headers.sendAdminSecret), [headers.sendAdminSecret]);
  const headersJson = JSON.stringify(headersObject(headers.rows), null, 2);
  const [analyzeWithTimings, setAnalyzeWithTimings] = useState(true);
  const [analysis, setAnalysis] = useState<Analysis | null>(null);
  const analyze = (query: string, variablesText: string, operationName: string | undefined) => {
    const user = sessionOf(headers.rows);
    const role = user['x-svc-role'] ?? 'admin';
    let variables: Record<string, unknown> | undefined;
    try {
      variables = variablesText.trim() ? (JSON.parse(variablesText) as Record<string, unknown>) : undefined;
    } catch (e) {
      setAnalysis({ busy: false, role, error: { code: 'invalid-json', message: `variables: ${(e as Error).message}` } });
      return;
    }
    setAnalysis({ busy: true, role });
    explainGraphql({ query, variables, operationName }, user, analyzeWithTimings).then(
      (plans) => setAnalysis({ busy: false, role, plans }),
      (error) => setAnalysis({ busy: false, role, error }),
    );
  };
  return (
    <div>
      <h1>GraphiQL</h1>
      {empty ? <p className="hint" role="note">Nothing is tracked yet, so the GraphQL schema has no fields: track tables on the <a href="#/data">Data</a> page first.</p> : null}
      <RequestHeadersEditor state={headers} onChange={setHeaders} roles={rolesOf(md.data)} sessionVariables={sessionVariablesOf(md.data)} />
      <label className="block"><input type="checkbox" checked={analyzeWithTimings} onChange={(e) => setAnalyzeWithTimings(e.target.checked)} /> Analyze runs EXPLAIN ANALYZE (real timings; read-only, rolled back)</label>
      <div className="graphiql-wrap">
        <GraphiQL
          fetcher={fetcher}
          headers={headersJson}
          onEditHeaders={(text) => {
            const now = headersRef.current;
            const rows = rowsFromJson(text, now.rows);
            if (rows && JSON.stringify(rows) !== JSON.stringify(now.rows)) setHeaders({ ...now, rows });
          }}
          isHeadersEditorEnabled
          defaultEditorToolsVisibility="headers"
          shouldPersistHeaders={false}
          plugins={[explorerPlugin]}
          visiblePlugin={explorerPlugin}
          toolbar={{ additionalContent: <><AnalyzeButton onAnalyze={analyze} /><SchemaFollowsHeaders headers={`${headers.sendAdminSecret}${headersJson}`} /></> }}
        />
      </div>
      {analysis ? <AnalyzePanel analysis={analysis} onClose={() => setAnalysis(null)} /> : null}
    </div>
  );
}
