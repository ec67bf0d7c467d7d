import { Module } from '@nestjs/common';
import { RuleSettings } from '../common/rule.decorator';
import { ProfilesController } from './profiles.controller';
import { ProfilesService } from './profiles.service';

@Module({ controllers: [ProfilesController], providers: [ProfilesService, RuleSettings] })
export class ProfilesModule {}
