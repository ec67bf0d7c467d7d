import type { Server } from 'node:http';
import { Module, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module';
import { SalesApiKeyStore } from './sales-api-key.store';
import { SalesApiKeysRepository } from './sales-api-keys.repository';
import { SalesBodyWatch } from './sales-body.watch';
import { SalesController } from './sales.controller';
import { SalesRepository } from './sales.repository';
import { SalesService } from './sales.service';
import { SalesHeartbeat } from './sales-heartbeat.service';

/** Sales ingestion: `POST /DataInserterSales/api/sales`, its ingestions, and the `apiKey` store. */
@Module({
  imports: [AccountsModule],
  controllers: [SalesController],
  providers: [SalesRepository, SalesService, SalesBodyWatch, SalesHeartbeat, SalesApiKeysRepository, SalesApiKeyStore],
})
export class SalesModule implements OnApplicationBootstrap {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /**
   * Node cuts any request whose body takes longer than 5 minutes (`requestTimeout`), which
   * a 1 GB upload over a modest link does. Uploads are bounded by their own idle timeout
   * and minimum rate (SalesBodyWatch, 408) instead; headers keep Node's `headersTimeout`.
   */
  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (server) server.requestTimeout = 0;
  }
}
