import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';

/** `GET api/Audit`; the AuditLog itself comes from the foundation (libs/audit). */
@Module({ controllers: [AuditController] })
export class GatewayAuditModule {}
