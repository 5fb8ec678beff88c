/**
 * Root fields chosen under a source's namespace field (`schema/namespaceFields.ts`) are planned and run as
 * root fields of their own whose alias is `<namespace alias>.<field alias>` (Hasura's `RootFieldAlias` text,
 * what `/v1/graphql/explain` names them by; `.` is in no GraphQL name, so no other alias has one). The
 * answer's `data` object nests them under the namespace's key again, in the order they were asked:
 * `{"ns":{"a":…,"b":…},"c":…}`. `responseKeys` gives the JSON text written before each root field's value
 * and after the last one, so every writer of a `data` object (one statement built in Postgres, the values
 * joined in the engine, a live query's row) writes the same nesting around the values as they come.
 */

/** The alias of `field` chosen under the namespace field aliased `namespace`. */
export const namespacedAlias = (namespace: string, field: string): string => `${namespace}.${field}`;

/**
 * The text before each alias's value (`{"a":`, `,"ns":{"b":`, `,"c":`, `},"d":`) and after the last value
 * (`}`, or `}}` closing a namespace); no aliases: `before` empty, `after` `{}`.
 */
export function responseKeys(aliases: readonly string[]): { before: string[]; after: string } {
  if (aliases.length === 0) return { before: [], after: '{}' };
  const before: string[] = [];
  let open: string | undefined;
  aliases.forEach((alias, i) => {
    const dot = alias.indexOf('.');
    const ns = dot < 0 ? undefined : alias.slice(0, dot);
    const key = dot < 0 ? alias : alias.slice(dot + 1);
    let text = i === 0 ? '{' : '';
    if (open !== undefined && ns !== open) text += '}';
    if (i > 0) text += ',';
    if (ns !== undefined && ns !== open) text += `${JSON.stringify(ns)}:{`;
    before.push(`${text}${JSON.stringify(key)}:`);
    open = ns;
  });
  return { before, after: open !== undefined ? '}}' : '}' };
}

/** The `data` object of `values` (each root field's JSON text, by alias, in response order). */
export function dataObject(aliases: readonly string[], valueOf: (alias: string) => string): string {
  const { before, after } = responseKeys(aliases);
  let out = '';
  for (let i = 0; i < aliases.length; i++) out += before[i] + valueOf(aliases[i]!);
  return out + after;
}
