/**
 * The error of a failed `listen`, saying what to do: a port in use or one that needs privileges names
 * `--server-port` / `SVC_GRAPHQL_SERVER_PORT`, an address this machine does not have names
 * `--server-host` / `SVC_GRAPHQL_SERVER_HOST`. Any other error is returned as it is.
 */
export function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new Error(`port ${port} is already in use (${where}): stop what listens there, or start the engine on another port with --server-port <port> (or SVC_GRAPHQL_SERVER_PORT=<port>)`);
  }
  if (code === 'EACCES') {
    return new Error(`not allowed to listen on ${where}: ports below 1024 need privileges; choose another with --server-port <port> (or SVC_GRAPHQL_SERVER_PORT=<port>)`);
  }
  if (code === 'EADDRNOTAVAIL') {
    return new Error(`cannot listen on ${where}: this machine has no address ${host}; choose another with --server-host (or SVC_GRAPHQL_SERVER_HOST), e.g. 0.0.0.0 for every interface`);
  }
  return err;
}
