/**
 * A YAML text's value as js-yaml reads it with YAML 1.2's core schema (what the `yaml` package reads by
 * default), or `undefined` when js-yaml refuses the text: a tag such as Hasura's `!include`, a duplicate
 * key, a syntax error. The `yaml` package then reads it, with the `!include` tag and its own messages.
 * js-yaml reads the metadata files of thousands of tables about ten times faster than `yaml` (a 5,000-table
 * `tables.yaml` of 8.3 MB: 0.58 s against 6.2 s), and `tests/unit/cli/blockYaml.test.ts` checks that it
 * gives `yaml`'s value on random documents and on every YAML file of the repository.
 */
import { CORE_SCHEMA, load } from 'js-yaml';

export function parseCoreYaml(text: string): unknown {
  try {
    return load(text, { schema: CORE_SCHEMA }) ?? null;
  } catch {
    return undefined;
  }
}
