/**
 * The gateway's tool pins shared by every node (`gateway.redis` with `--lock`): one Redis hash,
 * downstream tool name → `sha256:` hash of its definition. The first node to see a tool pins it for
 * all (HSETNX: two nodes that see it at once agree on one pin); an approval sets the new hashes and
 * tells the other nodes on the shared channel, which read the hash again and show the tool at once.
 * The hash has no expiry: a pin is meant to outlive any restart.
 */
import type { RedisConnection } from './connection.js';

// Adds the seed's pins that are missing, answers every pin. One round trip, no race between nodes.
const LOAD_SCRIPT = `
for i = 1, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
return redis.call('HGETALL', KEYS[1])`;

// Pins one tool unless it is pinned, answers the pin in force.
const PIN_SCRIPT = `
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])`;

export class RedisPinStore {
  readonly #hash: string;
  #listener: (() => void) | undefined;

  constructor(private readonly connection: RedisConnection) {
    this.#hash = connection.key('pins');
    connection.on('pins', () => this.#listener?.());
  }

  async load(seed: ReadonlyMap<string, string>): Promise<Map<string, string>> {
    const flat = (await this.connection.guard(() =>
      this.connection.command.eval(LOAD_SCRIPT, 1, this.#hash, ...[...seed].flat()),
    )) as string[];
    const pins = new Map<string, string>();
    for (let i = 0; i + 1 < flat.length; i += 2) pins.set(flat[i]!, flat[i + 1]!);
    return pins;
  }

  async pinFirst(name: string, hash: string): Promise<string> {
    return (await this.connection.guard(() =>
      this.connection.command.eval(PIN_SCRIPT, 1, this.#hash, name, hash),
    )) as string;
  }

  async approve(pins: ReadonlyMap<string, string>): Promise<void> {
    if (pins.size === 0) return;
    const { command, channel } = this.connection;
    // Both awaited: the approving command exits right after, and must not lose the message.
    await this.connection.guard(async () => {
      await command.hset(this.#hash, Object.fromEntries(pins));
      await command.publish(channel, this.connection.message('pins', null));
    });
  }

  onChange(listener: () => void): void {
    this.#listener = listener;
  }
}
