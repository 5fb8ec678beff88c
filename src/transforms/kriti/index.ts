export type { KritiNode, KritiBinaryOp } from './kritiAst.js';
export { KritiError, type KritiErrorCode, type KritiSpan, type KritiPos } from './kritiError.js';
export { lexKriti, type KritiToken } from './kritiLexer.js';
export { parseKriti } from './kritiParser.js';
export { evalKriti, jsonEqual, type KritiBindings } from './kritiEval.js';
export { KRITI_BASIC_FUNCTIONS, transformFunctions, kritiTypeName, type KritiFunction } from './kritiFunctions.js';
export { runKriti } from './runKriti.js';
