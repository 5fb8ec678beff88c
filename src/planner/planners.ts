/**
 * The planner's own planners of `ext:` root fields: the table mutations and the streaming
 * subscriptions. appState.ts adds the
 * actions' and the remote schemas' and names the result `ENGINE_PARTS.planners`.
 */
import { MUTATION_PLAN_KINDS, mutationRootPlanner } from './mutation.js';
import type { RootFieldPlanners } from './planOperation.js';
import { planStream } from './stream.js';

export const TABLE_PLANNERS: RootFieldPlanners = {
  ...Object.fromEntries([...MUTATION_PLAN_KINDS].map((kind) => [kind, mutationRootPlanner])),
  'ext:stream': planStream,
};
