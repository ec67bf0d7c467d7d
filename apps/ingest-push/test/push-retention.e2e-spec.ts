import 'reflect-metadata';
import { Pruner } from '@app/database';
import { dueIn, pushItem, request } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(60_000);

describe('push retention (PUSH_RETENTION_DAYS)', () => {
  const push = usePush({ env: { PUSH_RETENTION_DAYS: '30' } });

  /** A batch of `size` items due in an hour; its id. */
  const batch = async (size: number): Promise<string> => {
    const res = await push.app.post(
      push.token,
      Array.from({ length: size }, () => pushItem(dueIn(3_600_000))),
    );
    expect(res.status).toBe(202);
    return res.body.batch_id;
  };
  /** Makes the batch look as if it was created and its items last changed `days` ago, ending in `status`. */
  const age = (id: string, days: number, status: string) =>
    push.app.sql.rows(
      `WITH b AS (UPDATE ingest_push.push_batches SET created_at = now() - make_interval(days => $2) WHERE id = $1)
       UPDATE ingest_push.push_items SET status = $3, next_attempt_at = NULL, updated_at = now() - make_interval(days => $2) WHERE batch_id = $1`,
      [id, days, status],
    );
  const read = (id: string) =>
    request(push.app.http)
      .get(`/api/pushm/bulk/${id}`)
      .set({ authorization: `Bearer ${push.token}` });
  const items = async (id: string) =>
    (await push.app.sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM ingest_push.push_items WHERE batch_id = $1`, [id]))!.n;

  it('deletes batches that ended more than 30 days ago with all their items, and nothing else', async () => {
    const expired = [await batch(300), await batch(5)];
    await age(expired[0], 31, 'sent');
    await age(expired[1], 45, 'cancelled');
    const recent = await batch(20);
    await age(recent, 29, 'sent');
    // Old, but one item is still scheduled: the batch has not ended.
    const running = await batch(10);
    await age(running, 40, 'failed');
    await push.app.sql.rows(`UPDATE ingest_push.push_items SET status = 'scheduled' WHERE batch_id = $1 AND position = 0`, [running]);
    const fresh = await batch(3);

    expect(await push.app.get(Pruner).pruneAll()).toBe(300 + 5 + 2);

    for (const id of expired) {
      await read(id).expect(404);
      expect(await items(id)).toBe(0);
    }
    for (const [id, size] of [
      [recent, 20],
      [running, 10],
      [fresh, 3],
    ] as const) {
      expect((await read(id).expect(200)).body).toMatchObject({ batch_id: id, accepted: size });
      expect(await items(id)).toBe(size);
    }
    // A second round finds nothing more.
    expect(await push.app.get(Pruner).pruneAll()).toBe(0);
  });
});
