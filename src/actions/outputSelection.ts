/** The output selection of an action field, planned from its GraphQL selection (actionPlan.ts). */
import type { CustomRelInfo } from '../metadata/index.js';
import type { BoolExp, SelectIR } from '../ir/index.js';
import type { SourceJoinField } from '../planner/index.js';

export type OutputField =
  | { alias: string; kind: 'typename'; name: string }
  | { alias: string; kind: 'field'; name: string }
  /** `remoteVisibleIf` (inherited roles): the rows where the role sees the table's join columns. */
  | { alias: string; kind: 'rel'; rel: CustomRelInfo; select: SelectIR; remoteVisibleIf?: BoolExp; join?: SourceJoinField }
  /** A field of another object type (nested object, or a list of them when `list`). */
  | { alias: string; kind: 'object'; name: string; list: boolean; selection: OutputSelection };

export interface OutputSelection {
  typename: string;
  fields: OutputField[];
}
