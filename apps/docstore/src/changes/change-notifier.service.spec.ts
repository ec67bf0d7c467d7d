import type { RedisConfig } from '@app/redis';
import { ChangeNotifier } from './change-notifier.service';

/** The notifier without Redis: which readers each batch wakes, and when the sweep wakes them all. */
describe('ChangeNotifier', () => {
  const notifier = () => new ChangeNotifier({ REDIS_PREFIX: 'test:' } as RedisConfig);
  const batch = (from: bigint, to: bigint, ...clients: string[]) => ({ from, to, byClient: new Map(clients.map((c) => [c, String(to)])) });

  it('wakes the readers of the clients a batch names, and no others', () => {
    const n = notifier();
    const woken: string[] = [];
    n.listen('a', () => woken.push('a'));
    const stop = n.listen('b', () => woken.push('b'));
    n.announce(batch(1n, 2n, 'a'));
    n.announce(batch(3n, 3n, 'b'));
    stop();
    n.announce(batch(4n, 4n, 'b'));
    expect(woken).toEqual(['a', 'b']);
    expect(n.readerCount).toBe(1);
  });

  it('wakes every reader when the sweep finds the feed past the batches it heard of, and only then', () => {
    const n = notifier();
    let wakes = 0;
    n.listen('a', () => wakes++);
    n.listen('b', () => wakes++);
    n.moved('10'); // the first sweep only learns where the feed is
    expect(wakes).toBe(0);
    n.announce(batch(11n, 12n));
    n.announce(batch(14n, 15n)); // 13 was never heard of
    n.moved('12');
    expect(wakes).toBe(0);
    n.moved('15');
    expect(wakes).toBe(2);
    n.announce(batch(16n, 18n));
    n.moved('18');
    expect(wakes).toBe(2);
  });
});
