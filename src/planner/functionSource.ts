/** The FROM of a select over a tracked function (query root fields and functions exposed as mutations). */
import type { NField } from '../graphql/index.js';
import type { FunctionSource } from '../ir/index.js';
import type { FunctionInfo } from '../metadata/index.js';
import { functionArgs } from './select.js';

/** `FROM fn(args)`: the session argument, when configured, is passed by name as the session JSON. */
export function functionSource(fn: FunctionInfo, f: NField): FunctionSource {
  const args = functionArgs(fn.inputArgs, f.args.get('args'), fn.sessionArgument !== undefined);
  if (fn.sessionArgument) args.push({ name: fn.sessionArgument, value: { source: { kind: 'sessionJson' }, pgType: 'json' } });
  return { function: fn.name, args };
}
