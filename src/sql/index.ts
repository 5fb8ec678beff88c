export * from './fragment.js';
export * from './params.js';
