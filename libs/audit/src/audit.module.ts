import { Global, Module } from '@nestjs/common';
import { AuditLog } from './audit-log.service';

/** The app's AuditLog, for every feature module (global); needs DatabaseModule and AuditConfig among the settings. */
@Global()
@Module({ providers: [AuditLog], exports: [AuditLog] })
export class AuditModule {}
