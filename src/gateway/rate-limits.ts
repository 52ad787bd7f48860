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
  /** The limiter's refusal as a {@link RateLimited}; anything else (Redis down, no insurance) rethrown. */
  readonly refusal: (error: unknown) => RateLimited;
}

const NOT_LIMITED: Promise<undefined> = Promise.resolve(undefined);
const allowed = (): undefined => undefined;

/** Of several rules' verdicts, the refusal with the longest wait, if any refused. */
function longestWait(verdicts: ReadonlyArray<RateLimited | undefined>): RateLimited | undefined {
  let refused: RateLimited | undefined;
  for (const verdict of verdicts) {
    if (verdict !== undefined && (refused === undefined || verdict.retryAfterMs > refused.retryAfterMs))
      refused = verdict;
  }
  return refused;
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
      // The rule's place and text in the Redis key: an edited rule starts counting afresh. Each
      // rule has a memory limiter of its own, so its keys need no prefix (one would be a string
      // built and hashed on every call).
      const keyPrefix = `${prefix}:${index}:${rule.limit}:${rule.principals.join(',')}:${rule.tools.join(',')}`;
      const memory = new RateLimiterMemory({ points: rule.points, duration: rule.seconds, keyPrefix: '' });
      const limiter = options.redis
        ? new RateLimiterRedis({
            storeClient: options.redis,
            points: rule.points,
            duration: rule.seconds,
            keyPrefix,
            insuranceLimiter: memory,
          })
        : memory;
      const refusal = (error: unknown): RateLimited => {
        if (!(error instanceof RateLimiterRes)) throw error;
        return {
          retryAfterMs: Math.max(1, Math.ceil(error.msBeforeNext)),
          limit: rule.points,
          rule: rule.limit,
        };
      };
      return { rule, tools: rule.tools.map(glob), limiter, refusal };
    });
  }

  get size(): number {
    return this.#counted.length;
  }

  /**
   * Counts a call of `tool` by `caller` with every rule that counts it; resolves to why it may not
   * go (the longest wait when several refuse), or undefined when it may. No async function and no
   * await: one promise chain per rule, as the limiter answers (this runs for every call).
   */
  take(caller: Caller | undefined, tool: string): Promise<RateLimited | undefined> {
    const counted = this.#rulesFor(caller, tool);
    if (counted.length === 0) return NOT_LIMITED;
    const key = caller?.id ?? ANONYMOUS;
    if (counted.length === 1) {
      const [{ limiter, refusal }] = counted as [Counted];
      return limiter.consume(key).then(allowed, refusal);
    }
    return Promise.all(
      counted.map(({ limiter, refusal }) => limiter.consume(key).then(allowed, refusal)),
    ).then(longestWait);
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
