import type { Redis } from 'ioredis';
import type { SharedCounts, Taken } from './window-counts';

/**
 * WindowCounts' take in one atomic step on Redis: give up to ARGV[1] points within the limit
 * ARGV[2] (none left: count one beyond it), the window (ARGV[3] ms) starting at the key's first
 * point. ARGV[1] = 0 only reads.
 */
const TAKE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local want = tonumber(ARGV[1])
local granted = 0
if want > 0 then
  granted = math.min(want, math.max(0, tonumber(ARGV[2]) - used))
  local add = granted
  if add == 0 then add = 1 end
  used = redis.call('INCRBY', KEYS[1], add)
end
local ttl = redis.call('PTTL', KEYS[1])
if want > 0 and ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
if ttl < 0 then ttl = 0 end
return {granted, used, ttl}
`;

/** One limit's counts in Redis, under `svapi:<name>:<key>`, shared by every instance. */
export class RedisCounts implements SharedCounts {
  constructor(private readonly client: Redis, private readonly name: string, private readonly windowMs: number) {}

  async take(key: string, want: number, limit: number): Promise<Taken> {
    const [granted, used, msLeft] = await this.client.eval(TAKE, 1, `svapi:${this.name}:${key}`, want, limit, this.windowMs) as number[];
    return { granted, used, msLeft };
  }

  async peek(key: string): Promise<Pick<Taken, 'used' | 'msLeft'>> {
    const { used, msLeft } = await this.take(key, 0, 0);
    return { used, msLeft };
  }
}
