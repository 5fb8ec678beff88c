/** The FROM of a native query's root field: its code with the field's `args` as typed parameters. */
import type { NField } from '../graphql/index.js';
import type { NativeQuerySource } from '../ir/index.js';
import type { NativeQueryInfo } from '../metadata/index.js';
import { irValue } from './context.js';

/** Each `{{arg}}` becomes the argument's value (a variable stays a variable), cast to its declared type; absent → null. */
export function nativeQuerySource(nq: NativeQueryInfo, f: NField): NativeQuerySource {
  const given = f.args.get('args');
  const values = new Map(given?.kind === 'object' ? given.fields : []);
  const types = new Map(nq.arguments.map((a) => [a.name, a.pgType]));
  return {
    code: nq.code.map((p) => {
      if ('text' in p) return p;
      const pgType = types.get(p.arg)!;
      const v = values.get(p.arg);
      return { arg: v ? irValue(v, pgType) : { source: { kind: 'value', value: null }, pgType } };
    }),
  };
}
