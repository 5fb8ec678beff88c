export * from './value.js';
export * from './boolExp.js';
export * from './select.js';
export * from './mutation.js';
