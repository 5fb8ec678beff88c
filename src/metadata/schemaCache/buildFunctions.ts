/**
 * Tracked function metadata → `FunctionInfo`, validated as Hasura v1.3's `track_function`: it must
 * exist and not be overloaded, return SETOF a tracked table, not be VOLATILE nor VARIADIC, and a
 * configured `session_argument` must be a json input argument. Hasura v2's `exposed_as: "mutation"`
 * puts its root field on `mutation_root` instead, and then a VOLATILE function is accepted.
 */
import { graphqlName, qualifiedKey } from '../../core/index.js';
import type { FunctionMetadata } from '../model/metadata.js';
import type { FunctionInfo } from './types.js';
import type { SchemaRef } from './objects.js';
import { BuildError, quoted, quotedTable, type BuildState } from './buildState.js';
import { lookupFunction } from './buildComputedFields.js';

export function resolveFunction(state: Pick<BuildState, 'snapshot' | 'tables'>, fm: FunctionMetadata): { info: FunctionInfo; dependencies: SchemaRef[] } {
  const fn = lookupFunction(state, fm.function);
  const errors: string[] = [];
  if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(fn.name)) errors.push('function name is not in compliance with GraphQL spec');
  if (fn.hasVariadic) {
    errors.push('function with "VARIADIC" parameters are not supported');
  }
  if (fn.returnTypeKind !== 'c') errors.push('the function does not return a "COMPOSITE" type');
  if (!fn.returnsSet) errors.push('the function does not return a SETOF');
  if (!fn.returnTable) errors.push('the function does not return a SETOF table');
  const exposedAs = fm.configuration?.exposed_as ?? 'query';
  if (fn.volatility === 'VOLATILE' && exposedAs !== 'mutation') errors.push('function of type "VOLATILE" is not supported now');
  const sessionArgument = fm.configuration?.session_argument;
  if (sessionArgument !== undefined) {
    const arg = fn.args.find((a) => a.name === sessionArgument);
    if (!arg) errors.push(`given session argument ${quoted(sessionArgument)} not the input argument of the function`);
    else if (arg.type !== 'json') errors.push(`given session argument ${quoted(sessionArgument)} is not of type json`);
  }
  const badNames = fn.args.filter((a) => a.name !== null && !/^[_A-Za-z][_0-9A-Za-z]*$/.test(a.name)).map((a) => a.name!);
  if (badNames.length > 0) errors.push(`the function arguments ${badNames.map(quoted).join(', ')} are not in compliance with GraphQL spec`);
  if (errors.length > 0) {
    const body = errors.length === 1 ? `because ${errors[0]}` : `for the following reasons:\n${errors.map((e) => `  • ${e}\n`).join('')}`;
    throw new BuildError(`the function ${quotedTable(fm.function)} cannot be tracked ${body}`);
  }
  const returnTable = fn.returnTable!;
  if (!state.tables.has(qualifiedKey(returnTable))) throw new BuildError(`table ${quotedTable(returnTable)} is not tracked`);
  const info: FunctionInfo = {
    name: { ...fm.function },
    gqlName: graphqlName(fm.function),
    description: fn.comment,
    returnTable: { ...returnTable },
    volatility: fn.volatility,
    exposedAs,
    inputArgs: fn.args.filter((a) => a.name !== sessionArgument).map((a, i) => ({ name: a.name ?? `arg_${i + 1}`, pgType: a.type, hasDefault: a.hasDefault })),
    permissions: new Set((fm.permissions ?? []).map((p) => p.role)),
  };
  if (sessionArgument !== undefined) info.sessionArgument = sessionArgument;
  return { info, dependencies: [{ kind: 'table', table: returnTable }] };
}
