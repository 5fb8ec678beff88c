/**
 * A request's `Accept-Encoding`, read as Hasura v2 reads it for response compression: whether gzip is
 * accepted, and whether an uncompressed (`identity`) response is refused (`identity;q=0`, or `*;q=0`
 * without naming identity). q-values only tell an accepted coding from a refused one (`q=0`).
 */
/** What a client's `Accept-Encoding` accepts: gzip, and whether an uncompressed response is refused. */
export interface AcceptedEncodings {
  gzip: boolean;
  identityRefused: boolean;
}

const NONE: AcceptedEncodings = { gzip: false, identityRefused: false };

/** `Accept-Encoding` (one header, or several) read for gzip. */
export function acceptedEncodings(header: string | string[] | undefined): AcceptedEncodings {
  if (header === undefined) return NONE;
  const text = (Array.isArray(header) ? header.join(',') : header).toLowerCase();
  if (!text.includes('gzip')) return NONE;
  let gzipOk = false, gzipRefused = false, identityNamed = false, identityRefused = false, starRefused = false;
  for (const item of text.split(',')) {
    const [coding, ...params] = item.split(';').map((s) => s.trim());
    if (coding === '') continue;
    const q = params.find((p) => p.startsWith('q='));
    const refused = q !== undefined && Number(q.slice(2).trim()) === 0;
    if (coding === 'gzip' || coding === 'x-gzip') {
      if (refused) gzipRefused = true;
      else gzipOk = true;
    } else if (coding === 'identity') {
      identityNamed = true;
      if (refused) identityRefused = true;
    } else if (coding === '*' && refused) starRefused = true;
  }
  return { gzip: gzipOk && !gzipRefused, identityRefused: identityRefused || (starRefused && !identityNamed) };
}

