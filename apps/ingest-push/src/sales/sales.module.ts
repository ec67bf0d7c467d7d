import type { Server } from 'node:http';
import { Module, RequestMethod, type MiddlewareConsumer, type NestModule, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module';
import { SalesApiKeyStore } from './sales-api-key.store';
import { SalesApiKeysRepository } from './sales-api-keys.repository';
import { SalesBodyWatch } from './sales-body.watch';
import { SalesController } from './sales.controller';
import { SalesRepository } from './sales.repository';
import { SalesService } from './sales.service';
import { SalesHeartbeat } from './sales-heartbeat.service';
import { CustomerDataService } from './customer-data.service';
import { redactCustomerPath } from './customer-path.middleware';
import { SaleLinesController } from './sale-lines.controller';
import { SaleLinesRepository } from './sale-lines.repository';
import { SaleLinesService } from './sale-lines.service';
import { SalesRollupRefresher } from './sales-rollup.refresher';
import { SalesRollupsRepository } from './sales-rollups.repository';

/** Sales ingestion (`POST /DataInserterSales/api/sales`, its ingestions, the `apiKey` store) and the reads of what was loaded. */
@Module({
  imports: [AccountsModule],
  controllers: [SalesController, SaleLinesController],
  providers: [
    SalesRepository,
    SalesService,
    SalesBodyWatch,
    SalesHeartbeat,
    SalesApiKeysRepository,
    SalesApiKeyStore,
    SaleLinesRepository,
    SaleLinesService,
    CustomerDataService,
    SalesRollupsRepository,
    SalesRollupRefresher,
  ],
})
export class SalesModule implements OnApplicationBootstrap, NestModule {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /**
   * Node cuts any request whose body takes longer than 5 minutes (`requestTimeout`), which
   * a 1 GB upload over a modest link does. Uploads are bounded by their own idle timeout
   * and minimum rate (SalesBodyWatch, 408) instead; headers keep Node's `headersTimeout`.
   */
  configure(consumer: MiddlewareConsumer): void {
    // A CNPJ written with an unencoded `/` spans two segments (and answers 404): its log line is redacted too.
    const customers = 'DataInserterSales/api/sales/customers/:cpf_cnpj';
    consumer.apply(redactCustomerPath).forRoutes({ path: customers, method: RequestMethod.ALL }, { path: `${customers}/:rest`, method: RequestMethod.ALL });
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (server) server.requestTimeout = 0;
  }
}
