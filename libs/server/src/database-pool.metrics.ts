import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Pool } from 'pg';
import { DatabaseConfig } from '@app/database';
import { Metrics } from '@app/observability';

/**
 * `db_pool_connections{state}` at scrape time, from the app's PostgreSQL pool (node-postgres):
 * `max` (DB_POOL_SIZE), `open`, `idle`, `in_use` (open minus idle) and `waiting` (queries queued
 * for a connection). Waiting above 0 with in_use at max is a saturated pool.
 */
@Injectable()
export class DatabasePoolMetrics {
  constructor(dataSource: DataSource, config: DatabaseConfig, metrics: Metrics) {
    const pool = (dataSource.driver as unknown as { master?: Pool }).master;
    metrics.gauge(
      'db_pool_connections',
      'PostgreSQL pool connections of this process by state: max (DB_POOL_SIZE), open, idle, in_use, and waiting (queries queued for one).',
      ['state'],
      (set) => {
        if (!pool) return;
        set({ state: 'max' }, config.DB_POOL_SIZE);
        set({ state: 'open' }, pool.totalCount);
        set({ state: 'idle' }, pool.idleCount);
        set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        set({ state: 'waiting' }, pool.waitingCount);
      },
    );
  }
}
