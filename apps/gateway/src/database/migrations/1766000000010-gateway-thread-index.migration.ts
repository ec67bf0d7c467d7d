import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** One contact's outbound messages of a phone (a conversation's thread and last message), built CONCURRENTLY so sends go on. */
export class GatewayThreadIndex1766000000010 implements MigrationInterface {
  name = 'GatewayThreadIndex1766000000010';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(q, 'messages_thread_idx', 'messages', '("phone_ref", "wa_id", "created_at")');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, 'messages_thread_idx');
  }
}
