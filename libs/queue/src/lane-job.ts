import type { NewJob } from './queue-producer';

/** One outbox row's attempt, as a lane's job carries it: the row's id (as text) and the attempt's number (1-based). */
export interface LaneItem {
  id: string;
  attempt: number;
  /**
   * The trace context stored with the row by the request that wrote it (`currentTraceContext()` of
   * libs/observability): the worker's spans continue that trace. Absent when tracing was off.
   */
  trace?: string | null;
}

/** The data of every lane job: items of one grouping key (an account, a webhook), at most the lane's items per job. */
export interface LaneJob<Item extends LaneItem = LaneItem> {
  key: string;
  items: Item[];
}

/** How a lane turns claimed outbox rows into jobs. */
export interface LaneGrouping<Row, Item extends LaneItem> {
  /** The job's name (one job type per lane). */
  job: string;
  /** The grouping key of a row: a job carries the items of one key only. */
  key(row: Row): string;
  /** What a job carries of a row. */
  item(row: Row): Item;
  /** Items that travel in one job (one Redis round trip for several, each still handled on its own). */
  itemsPerJob: number;
}

/**
 * A job is named by its first item's attempt: the same attempts relayed twice (a claim whose
 * commit failed after its jobs were added) make one job, and a later attempt makes a new one.
 */
export function laneJobId(job: LaneJob): string {
  const first = job.items[0];
  return `${first.id}-${first.attempt}`;
}

/** Rows grouped by key, in claim order, `itemsPerJob` to a job. */
export function toLaneJobs<Row, Item extends LaneItem>(rows: readonly Row[], grouping: LaneGrouping<Row, Item>): Array<NewJob<LaneJob<Item>>> {
  const byKey = new Map<string, Item[]>();
  for (const row of rows) {
    const key = grouping.key(row);
    const items = byKey.get(key) ?? [];
    if (items.length === 0) byKey.set(key, items);
    items.push(grouping.item(row));
  }
  const jobs: Array<NewJob<LaneJob<Item>>> = [];
  for (const [key, items] of byKey) {
    for (let i = 0; i < items.length; i += grouping.itemsPerJob) {
      const data = { key, items: items.slice(i, i + grouping.itemsPerJob) };
      jobs.push({ name: grouping.job, data, jobId: laneJobId(data) });
    }
  }
  return jobs;
}

/** Whether a job's data carries items as lane jobs do; a job of another shape (an older version's) is not read. */
export function isLaneJob(data: unknown): data is LaneJob {
  const items = (data as Partial<LaneJob> | null)?.items;
  return Array.isArray(items) && items.every((item: Partial<LaneItem> | null) => typeof item?.id === 'string' && typeof item.attempt === 'number');
}
