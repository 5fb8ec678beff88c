export * from './apiError.js';
export * from './qualifiedTable.js';
export * from './session.js';
export * from './jsonTypeName.js';
export * from './namingConvention.js';
export * from './pgScalars.js';
