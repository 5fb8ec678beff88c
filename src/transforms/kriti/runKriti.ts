import { KritiError } from './kritiError.js';
import { evalKriti, type KritiBindings } from './kritiEval.js';
import { KRITI_BASIC_FUNCTIONS, type KritiFunction } from './kritiFunctions.js';
import { parseKriti } from './kritiParser.js';

/** Parses and evaluates a template: the value, or the parse / evaluation error as a value. */
export function runKriti(
  template: string,
  bindings: KritiBindings,
  functions: Readonly<Record<string, KritiFunction>> = KRITI_BASIC_FUNCTIONS,
): { ok: true; value: unknown } | { ok: false; error: KritiError } {
  try {
    return { ok: true, value: evalKriti(parseKriti(template), bindings, functions) };
  } catch (e) {
    if (e instanceof KritiError) return { ok: false, error: e };
    throw e;
  }
}
