import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { REDIS, type RedisClient } from '@app/redis';
import { ChangesConfig } from './changes.config';

/**
 * Takes a place for stream `ARGV[4]` in a client's set (KEYS[1]) and its token's (KEYS[2]) when both
 * have room: members are stream ids scored by when their lease runs out (Redis's clock, so replicas
 * agree); those past it are dropped first. 1: taken; 0: a cap is reached.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) or redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + lease, ARGV[4])
  redis.call('PEXPIRE', KEYS[i], lease)
end
return 1`;

/** Extends the lease of streams `ARGV[2..]` in set KEYS[1] (adds them again if Redis lost them). */
const RENEW = `
local t = redis.call('TIME')
local expires = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], expires, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return #ARGV - 1`;

type CapsRedis = RedisClient & {
  changesStreamTake(clientKey: string, tokenKey: string, leaseMs: number, perClient: number, perToken: number, id: string): Promise<number>;
  changesStreamRenew(key: string, leaseMs: number, ...ids: string[]): Promise<number>;
};

/** A held reader as the caps know it. */
export interface CappedStream {
  clientId: string;
  tokenId: string;
  /** Unique across replicas. */
  id: string;
}

/**
 * The caps on open streams and long polls per client and per token, counted across replicas in Redis:
 * one sorted set per client and one per token, both under the client's hash tag (`{<client>}`: one
 * slot of a Redis Cluster, so one script checks and takes both). A member is a stream id scored by
 * the end of its lease (CHANGES_STREAM_LEASE_SECONDS); each replica renews its streams' leases every
 * third of it, so a replica that died stops counting once its leases run out.
 */
@Injectable()
export class ChangeStreamCaps {
  private readonly redis: CapsRedis;
  private readonly replica = randomUUID();
  private serial = 0;

  constructor(
    @Inject(REDIS) redis: RedisClient,
    private readonly config: ChangesConfig,
  ) {
    if (!('changesStreamTake' in redis)) {
      redis.defineCommand('changesStreamTake', { numberOfKeys: 2, lua: TAKE });
      redis.defineCommand('changesStreamRenew', { numberOfKeys: 1, lua: RENEW });
    }
    this.redis = redis as CapsRedis;
  }

  /** A new stream id, unique across replicas. */
  newId(): string {
    return `${this.replica}:${++this.serial}`;
  }

  /** Counts the stream if both its client and its token are below their caps; false otherwise. Throws when Redis is unreachable. */
  async take(stream: CappedStream): Promise<boolean> {
    const { CHANGES_MAX_STREAMS_PER_CLIENT: perClient, CHANGES_MAX_STREAMS_PER_TOKEN: perToken } = this.config;
    return (await this.redis.changesStreamTake(clientKey(stream), tokenKey(stream), this.leaseMs(), perClient, perToken, stream.id)) === 1;
  }

  /** Frees the stream's place (a failure leaves it until its lease runs out). */
  release(stream: CappedStream): void {
    this.redis.zrem(clientKey(stream), stream.id).catch(() => undefined);
    this.redis.zrem(tokenKey(stream), stream.id).catch(() => undefined);
  }

  /** Renews the leases of this replica's streams: one command per client and per token. */
  async renew(streams: Iterable<CappedStream>): Promise<void> {
    const byKey = new Map<string, string[]>();
    for (const stream of streams) {
      for (const key of [clientKey(stream), tokenKey(stream)]) {
        const ids = byKey.get(key);
        if (ids) ids.push(stream.id);
        else byKey.set(key, [stream.id]);
      }
    }
    await Promise.all([...byKey].map(([key, ids]) => this.redis.changesStreamRenew(key, this.leaseMs(), ...ids)));
  }

  /** Milliseconds between renewals: a third of the lease. */
  get renewEveryMs(): number {
    return this.leaseMs() / 3;
  }

  private leaseMs(): number {
    return this.config.CHANGES_STREAM_LEASE_SECONDS * 1000;
  }
}

const clientKey = (stream: CappedStream): string => `changes:streams:{${stream.clientId}}`;
const tokenKey = (stream: CappedStream): string => `changes:streams:{${stream.clientId}}:token:${stream.tokenId}`;
