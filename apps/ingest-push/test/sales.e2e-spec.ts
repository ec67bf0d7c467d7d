import request from 'supertest';
import { salesFile } from '../../../tools/sales-file';
import { SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

describe('sales ingestion (smoke)', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  it('stores a CSV upload', async () => {
    const { key } = await t.apiKey();
    const res = await upload(t.port, { apiKey: key, 'Content-Type': 'application/csv' }, salesFile({ format: 'csv', rows: 1000, invalidEvery: 100 }));
    console.log(res.status, res.body.slice(0, 2000));
    expect(res.status).toBe(201);
    const got = await request(t.http).get(`${SALES_PATH}/ingestions/${res.json().ingestion_id}`).set('apiKey', key);
    console.log(got.body);
  });
});
