/**
 * One node of test/redis/cluster.ts's `startProcessCluster`, in a process of its own so that a test
 * can kill it: `node node-process.js <name> <redis url> <prefix>`. Sends its URL, then each entry of
 * its request and forward logs, to the parent over IPC; exits when the parent goes.
 */
import { startNode } from './cluster.js';

const [name, url, prefix] = process.argv.slice(2) as [string, string, string];
const node = await startNode(name, url, prefix, (log, entry) => process.send?.({ log, entry }));
process.send?.({ url: node.url });
process.on('disconnect', () => process.exit(0));
