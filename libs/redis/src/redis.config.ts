// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsString, IsUrl, Matches } from 'class-validator';

/** Redis settings, read by the Redis lib. */
export class RedisConfig {
  /** The Redis server; with REDIS_CLUSTER_NODES set, only its username, password and scheme (`rediss:` is TLS) are used. */
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /**
   * A Redis Cluster instead of one server: some of its nodes as `host:port,host:port` (the client finds the rest,
   * so a managed cluster's configuration endpoint alone will do). Empty: the server REDIS_URL names.
   */
  @Matches(/^$|^[\w.-]+:\d{1,5}(,[\w.-]+:\d{1,5})*$/, { message: 'REDIS_CLUSTER_NODES must be host:port pairs separated by commas' })
  REDIS_CLUSTER_NODES: string = '';

  /** Prefix for every Redis key, so services (and test runs) sharing one Redis never collide. */
  @IsString()
  @Matches(/^[\w:.-]*$/)
  REDIS_PREFIX: string = '';
}
