import { EventEmitter } from 'node:events';
import { drained } from './change-streams.service';

describe('a stream waiting for its socket', () => {
  it('leaves no listener behind, however often it waits for a drain', async () => {
    const res = new EventEmitter();
    for (let i = 0; i < 50; i++) {
      const waiting = drained(res);
      res.emit('drain');
      await waiting;
    }
    expect({ drain: res.listenerCount('drain'), close: res.listenerCount('close') }).toEqual({ drain: 0, close: 0 });
  });

  it('ends its wait when the client goes away instead', async () => {
    const res = new EventEmitter();
    const waiting = drained(res);
    res.emit('close');
    await waiting;
    expect({ drain: res.listenerCount('drain'), close: res.listenerCount('close') }).toEqual({ drain: 0, close: 0 });
  });
});
