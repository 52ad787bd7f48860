/** `switchboard/testing`: helpers for tests and single-process setups. */
export { createLinkedChannels } from './transports/memory.js';
