/**
 * `gateway.rateLimits`: rules `{ principals, tools, limit: "60/minute" }`, counted per principal
 * per rule by `rate-limiter-flexible`, in memory or, with `gateway.redis`, in Redis for every node
 * at once (with a memory limiter as insurance while Redis cannot be reached). A call over any of
 * its rules' limits is refused before it reaches the upstream, with the wait until it may go.
 */
import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { namesCaller } from './access.js';
import { type Caller, memoryOf } from './caller.js';
import type { RateLimitRule } from './config-security.js';
import { glob } from './glob.js';

/** Why a call may not go now. */
export interface RateLimited {
  /** How long until it may (at least 1 ms). */
  readonly retryAfterMs: number;
  /** The calls the rule permits per window. */
  readonly limit: number;
  /** The rule, as written (`60/minute`). */
  readonly rule: string;
}

interface Counted {
  readonly rule: RateLimitRule;
  readonly tools: readonly RegExp[];
  readonly limiter: RateLimiterAbstract;
}

const ANONYMOUS = '\0anonymous';
const MAX_REMEMBERED = 10_000;

export interface RateLimitsOptions {
  /** Counters in Redis (shared by every node), else in this process's memory. */
  readonly redis?: Redis;
  /** Key prefix in Redis. Default `switchboard:gateway:rl`. */
  readonly prefix?: string;
}

export class RateLimits {
  readonly #counted: readonly Counted[];
  /** Per caller and tool: the rules that count it (the rules change only with the config). */
  readonly #applies = new Map<string, Map<string, readonly Counted[]>>();

  constructor(rules: readonly RateLimitRule[], options: RateLimitsOptions = {}) {
    const prefix = options.prefix ?? 'switchboard:gateway:rl';
    this.#counted = rules.map((rule, index) => {
      // The rule's place and text in the key: an edited rule starts counting afresh.
      const keyPrefix = `${prefix}:${index}:${rule.limit}:${rule.principals.join(',')}:${rule.tools.join(',')}`;
      const memory = new RateLimiterMemory({ points: rule.points, duration: rule.seconds, keyPrefix });
      const limiter = options.redis
        ? new RateLimiterRedis({
            storeClient: options.redis,
            points: rule.points,
            duration: rule.seconds,
            keyPrefix,
            insuranceLimiter: memory,
          })
        : memory;
      return { rule, tools: rule.tools.map(glob), limiter };
    });
  }

  get size(): number {
    return this.#counted.length;
  }

  /** Counts a call of `tool` by `caller`; resolves to why it may not go, or undefined when it may. */
  async take(caller: Caller | undefined, tool: string): Promise<RateLimited | undefined> {
    const counted = this.#rulesFor(caller, tool);
    if (counted.length === 0) return undefined;
    const key = caller?.id ?? ANONYMOUS;
    let refused: RateLimited | undefined;
    for (const { rule, limiter } of counted) {
      try {
        await limiter.consume(key);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        const retryAfterMs = Math.max(1, Math.ceil(error.msBeforeNext));
        if (refused === undefined || retryAfterMs > refused.retryAfterMs) {
          refused = { retryAfterMs, limit: rule.points, rule: rule.limit };
        }
      }
    }
    return refused;
  }

  #rulesFor(caller: Caller | undefined, tool: string): readonly Counted[] {
    // Per caller, then per tool: no key string built per call.
    const key = caller?.key ?? ANONYMOUS;
    const tools = memoryOf(this.#applies, key, MAX_REMEMBERED);
    let counted = tools.get(tool);
    if (counted === undefined) {
      counted = this.#counted.filter(
        ({ rule, tools }) =>
          namesCaller(rule.principals, caller) && tools.some((pattern) => pattern.test(tool)),
      );
      if (tools.size >= MAX_REMEMBERED) tools.clear();
      tools.set(tool, counted);
    }
    return counted;
  }
}
