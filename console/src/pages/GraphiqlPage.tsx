/**
 * GraphiQL on /v1/graphql: docs explorer, variables, and a request-headers editor prefilled with
 * the role / session-variable headers for trying permissions (`x-svc-role`, `x-svc-user-id`). The
 * admin secret is added unless the headers give one. Subscriptions go over a WebSocket
 * (graphql-transport-ws, the headers in `connection_init`, as the engine reads them).
 */
import { GraphiQL } from 'graphiql';
import type { Fetcher, FetcherParams, FetcherOpts } from '@graphiql/toolkit';
import { createClient } from 'graphql-ws';
import { adminHeaders, exportMetadata } from '../api';
import { useLoad } from '../components';

const DEFAULT_HEADERS = JSON.stringify({ 'x-svc-role': 'admin', 'x-svc-user-id': '1' }, null, 2);

const isSubscription = (p: FetcherParams): boolean => {
  const src = p.query.replace(/#[^\n]*/g, '');
  const ops = [...src.matchAll(/\b(query|mutation|subscription)\b\s*([_A-Za-z][_0-9A-Za-z]*)?/g)];
  const op = p.operationName ? ops.find((m) => m[2] === p.operationName) : ops[0];
  return op?.[1] === 'subscription';
};

const fetcher: Fetcher = (params: FetcherParams, opts?: FetcherOpts) => {
  const headers: Record<string, string> = { ...adminHeaders(), ...((opts?.headers ?? {}) as Record<string, string>) };
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

export function GraphiqlPage() {
  const md = useLoad(exportMetadata);
  const empty = md.data && !(md.data.tables?.length || md.data.remote_schemas?.length || md.data.actions?.length);
  return (
    <div>
      <h1>GraphiQL</h1>
      {empty ? <p className="hint" role="note">Nothing is tracked yet, so the GraphQL schema has no fields: track tables on the <a href="#/data">Data</a> page first.</p> : null}
      <div className="graphiql-wrap">
        <GraphiQL fetcher={fetcher} defaultHeaders={DEFAULT_HEADERS} isHeadersEditorEnabled shouldPersistHeaders={false} defaultEditorToolsVisibility="headers" />
      </div>
    </div>
  );
}
