import { isLaneJob, laneJobId, toLaneJobs } from './lane-job';

interface Row {
  id: number;
  account: string;
  attempts: number;
}

const grouping = {
  job: 'send',
  key: (row: Row) => row.account,
  item: (row: Row) => ({ id: String(row.id), attempt: row.attempts + 1 }),
  itemsPerJob: 2,
};

describe('lane jobs', () => {
  it('groups rows by key, in claim order, at most itemsPerJob to a job, each job named by its first attempt', () => {
    const rows: Row[] = [
      { id: 1, account: 'a', attempts: 0 },
      { id: 2, account: 'b', attempts: 2 },
      { id: 3, account: 'a', attempts: 0 },
      { id: 4, account: 'a', attempts: 1 },
    ];
    expect(toLaneJobs(rows, grouping)).toEqual([
      {
        name: 'send',
        jobId: '1-1',
        data: {
          key: 'a',
          items: [
            { id: '1', attempt: 1 },
            { id: '3', attempt: 1 },
          ],
        },
      },
      { name: 'send', jobId: '4-2', data: { key: 'a', items: [{ id: '4', attempt: 2 }] } },
      { name: 'send', jobId: '2-3', data: { key: 'b', items: [{ id: '2', attempt: 3 }] } },
    ]);
  });

  it('names the next attempt of the same rows differently, and the same attempt the same', () => {
    expect(laneJobId({ key: 'a', items: [{ id: '7', attempt: 1 }] })).toBe(
      laneJobId({
        key: 'a',
        items: [
          { id: '7', attempt: 1 },
          { id: '8', attempt: 1 },
        ],
      }),
    );
    expect(laneJobId({ key: 'a', items: [{ id: '7', attempt: 2 }] })).not.toBe(laneJobId({ key: 'a', items: [{ id: '7', attempt: 1 }] }));
  });

  it('makes no job of no rows, and reads only its own shape back', () => {
    expect(toLaneJobs([], grouping)).toEqual([]);
    expect(isLaneJob({ key: 'a', items: [{ id: '1', attempt: 1 }] })).toBe(true);
    expect(isLaneJob({ webhookId: 'w', deliveries: [{ deliveryId: '1', attempt: 1 }] })).toBe(false);
    expect(isLaneJob(undefined)).toBe(false);
  });
});
