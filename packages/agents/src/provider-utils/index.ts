export * from './abort.js';
export * from './retry.js';
export * from './timeout.js';
