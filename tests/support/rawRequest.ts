/**
 * An HTTP request with exactly the given headers (the harness request functions add the admin secret;
 * auth tests need requests without it).
 */
export interface RawResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function rawRequest(baseUrl: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResult> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
