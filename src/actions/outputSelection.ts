/** The output selection of an action field, planned from its GraphQL selection (actionPlan.ts). */
import type { CustomRelInfo } from '../metadata/index.js';
import type { SelectIR } from '../ir/index.js';

export type OutputField =
  | { alias: string; kind: 'typename'; name: string }
  | { alias: string; kind: 'field'; name: string }
  | { alias: string; kind: 'rel'; rel: CustomRelInfo; select: SelectIR };

export interface OutputSelection {
  typename: string;
  fields: OutputField[];
}
